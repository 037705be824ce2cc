#!/usr/bin/python3
"""Runs a command under the system-call filter and address families of a systemd unit,
as systemd would apply them, without systemd: for ServiceUnitTests, which cannot start
the unit itself (no systemd as PID 1 on CI).

    /usr/bin/python3 Tests/Sandbox/unit_sandbox.py UNIT UID DIRECTORY -- COMMAND [ARGUMENT...]

- SystemCallFilter= lines, in order: a list allows (the first one makes the filter an
  allow-list), a "~" list denies; groups (@system-service) are expanded recursively by
  `systemd-analyze syscall-filter`, as systemd's own table has them. A system call
  outside the set kills the process with SIGSYS, as systemd's default action does.
- RestrictAddressFamilies=: socket() of any other family fails with EAFNOSUPPORT, as
  under systemd.
- NoNewPrivileges (a seccomp filter needs it), then the user UID (and its group) as
  DynamicUser= would give one, in DIRECTORY (its StateDirectory=: entered before the
  user changes, so that the test's private temporary directories above it need not be
  opened to that user; give COMMAND paths relative to it), then exec COMMAND (opened
  before the user changes too, and run from that descriptor, wherever the build is).

Needs root (to change user) and python3-seccomp (Debian's package, for /usr/bin/python3)."""
import errno
import os
import socket
import subprocess
import sys

import seccomp


def expand(name, seen):
    """The system calls of `name`, a group (@...) or one call."""
    if not name.startswith("@"):
        return {name}
    if name in seen:
        return set()
    seen.add(name)
    listing = subprocess.run(["systemd-analyze", "syscall-filter", name], capture_output=True, text=True, check=True).stdout
    calls = set()
    for line in listing.splitlines()[1:]:
        entry = line.strip()
        if entry and not entry.startswith("#"):
            calls |= expand(entry, seen)
    return calls


def unit_settings(path):
    filters, families = [], None
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if line.startswith("SystemCallFilter="):
            filters.append(line.split("=", 1)[1])
        elif line.startswith("RestrictAddressFamilies="):
            families = line.split("=", 1)[1].split()
    return filters, families


def main():
    unit, uid, directory = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    assert sys.argv[4] == "--", "usage: unit_sandbox.py UNIT UID DIRECTORY -- COMMAND..."
    command = sys.argv[5:]
    filters, families = unit_settings(unit)
    allowed = None
    for value in filters:
        deny = value.startswith("~")
        calls = set()
        for name in value.lstrip("~").split():
            calls |= expand(name, set())
        if deny:
            allowed = (allowed if allowed is not None else set()) - calls
        else:
            allowed = (allowed or set()) | calls
    rules = seccomp.SyscallFilter(defaction=seccomp.KILL_PROCESS)
    for call in sorted(allowed or ()):
        if call == "socket" and families is not None:
            continue
        try:
            rules.add_rule(seccomp.ALLOW, call)
        except (RuntimeError, ValueError, OSError):
            pass  # not a call of this architecture, as systemd skips it
    if families is not None and "socket" in (allowed or ()):
        numbers = [getattr(socket, family) for family in families]
        for number in numbers:
            rules.add_rule(seccomp.ALLOW, "socket", seccomp.Arg(0, seccomp.EQ, number))
        # Every other family: EAFNOSUPPORT, as RestrictAddressFamilies= answers.
        for number in range(0, 64):
            if number not in numbers:
                rules.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), "socket", seccomp.Arg(0, seccomp.EQ, number))
    program = os.open(command[0], os.O_RDONLY)
    os.chdir(directory)
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    rules.load()  # sets no_new_privs first
    os.execve(program, command, dict(os.environ))


main()
