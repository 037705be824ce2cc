/*
 * An interposed library (LD_PRELOAD) for tests that fail one file operation of a real
 * binary, as a disk that errs or fills would: the Nth write, sync, truncation, rename, link
 * or file creation under one directory fails with EIO or ENOSPC, changing nothing; every
 * other call passes through to the C library. It reaches what the crash VFS cannot: the
 * project's own files (an export's temporary file and its rename, an import's new database
 * file, the token file, the action log) as well as SQLite's, in `archive` and
 * `archive-server` as users run them.
 *
 * Written by hand: no package offers a fault-injecting interposer, and the test needs one
 * that counts exactly the calls it can fail.
 *
 * Environment:
 *   FAULT_INJECTION_DIRECTORY  the directory whose files count (absolute); unset: none do
 *   FAULT_INJECTION_AT         the counted call that fails (1-based); 0 or unset: none
 *   FAULT_INJECTION_ERRNO      EIO (default) or ENOSPC
 *   FAULT_INJECTION_LOG        a file outside the directory: one line per counted call,
 *                              "N OPERATION PATH", and " FAILED" after the one failed
 *
 * Counted calls: write, pwrite, pwrite64, writev, pwritev, fsync, fdatasync, ftruncate,
 * ftruncate64 and fallocate on a descriptor whose file is under the directory; rename,
 * renameat, renameat2, link and linkat whose new name is; open, open64, openat and
 * openat64 with O_CREAT of a name under it. The count is per process.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static atomic_long counted;

/* The directory (with a trailing slash), or NULL. */
static const char *directory(size_t *length) {
    static char buffer[PATH_MAX + 2];
    static atomic_int state;  /* 0 unread, 1 set, 2 none */
    int seen = atomic_load(&state);
    if (seen == 0) {
        const char *value = getenv("FAULT_INJECTION_DIRECTORY");
        if (value == NULL || value[0] != '/' || strlen(value) > PATH_MAX) {
            seen = 2;
        } else {
            snprintf(buffer, sizeof buffer, "%s%s", value, value[strlen(value) - 1] == '/' ? "" : "/");
            seen = 1;
        }
        atomic_store(&state, seen);
    }
    if (seen != 1) return NULL;
    *length = strlen(buffer);
    return buffer;
}

static int under(const char *path) {
    size_t length;
    const char *root = directory(&length);
    if (root == NULL || path == NULL) return 0;
    return strncmp(path, root, length) == 0 || (strlen(path) == length - 1 && strncmp(path, root, length - 1) == 0);
}

/* The path of descriptor `fd`, or "" when it has none. */
static void descriptor_path(int fd, char *out, size_t size) {
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, out, size - 1);
    out[n > 0 ? (size_t)n : 0] = '\0';
}

/* `path` made absolute against `dirfd` (AT_FDCWD: the working directory). */
static void absolute_path(int dirfd, const char *path, char *out, size_t size) {
    if (path == NULL) { out[0] = '\0'; return; }
    if (path[0] == '/') { snprintf(out, size, "%s", path); return; }
    char base[PATH_MAX];
    if (dirfd == AT_FDCWD) {
        if (getcwd(base, sizeof base) == NULL) base[0] = '\0';
    } else {
        descriptor_path(dirfd, base, sizeof base);
    }
    snprintf(out, size, "%s/%s", base, path);
}

static void log_call(long number, const char *operation, const char *path, int failed) {
    const char *log = getenv("FAULT_INJECTION_LOG");
    if (log == NULL) return;
    char line[PATH_MAX + 96];
    int length = snprintf(line, sizeof line, "%ld %s %s%s\n", number, operation, path, failed ? " FAILED" : "");
    if (length < 0) return;
    if ((size_t)length >= sizeof line) length = (int)sizeof line - 1;
    /* Raw system calls: the library's own writes are never counted. */
    int fd = (int)syscall(SYS_openat, AT_FDCWD, log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return;
    syscall(SYS_write, fd, line, (size_t)length);
    syscall(SYS_close, fd);
}

/* Counts a call on `path` (if it is under the directory); 1 when this one must fail, with
   errno set. */
static int fails(const char *operation, const char *path) {
    if (!under(path)) return 0;
    long number = atomic_fetch_add(&counted, 1) + 1;
    const char *at = getenv("FAULT_INJECTION_AT");
    int failing = at != NULL && atol(at) == number;
    log_call(number, operation, path, failing);
    if (!failing) return 0;
    const char *code = getenv("FAULT_INJECTION_ERRNO");
    errno = code != NULL && strcmp(code, "ENOSPC") == 0 ? ENOSPC : EIO;
    return 1;
}

static int descriptor_fails(const char *operation, int fd) {
    size_t length;
    if (directory(&length) == NULL) return 0;
    char path[PATH_MAX];
    descriptor_path(fd, path, sizeof path);
    return fails(operation, path);
}

static int name_fails(const char *operation, int dirfd, const char *name) {
    size_t length;
    if (directory(&length) == NULL) return 0;
    char path[PATH_MAX + 2];
    absolute_path(dirfd, name, path, sizeof path);
    return fails(operation, path);
}

/* The C library's `name`, looked up once (a race looks up the same address twice). */
#define REAL(name) \
    static __typeof__(&name) _Atomic real_##name; \
    if (real_##name == NULL) real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buffer, size_t count) {
    REAL(write);
    if (descriptor_fails("write", fd)) return -1;
    return real_write(fd, buffer, count);
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    REAL(pwrite);
    if (descriptor_fails("pwrite", fd)) return -1;
    return real_pwrite(fd, buffer, count, offset);
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off64_t offset) {
    REAL(pwrite64);
    if (descriptor_fails("pwrite64", fd)) return -1;
    return real_pwrite64(fd, buffer, count, offset);
}

ssize_t writev(int fd, const struct iovec *vector, int count) {
    REAL(writev);
    if (descriptor_fails("writev", fd)) return -1;
    return real_writev(fd, vector, count);
}

ssize_t pwritev(int fd, const struct iovec *vector, int count, off_t offset) {
    REAL(pwritev);
    if (descriptor_fails("pwritev", fd)) return -1;
    return real_pwritev(fd, vector, count, offset);
}

int fsync(int fd) {
    REAL(fsync);
    if (descriptor_fails("fsync", fd)) return -1;
    return real_fsync(fd);
}

int fdatasync(int fd) {
    REAL(fdatasync);
    if (descriptor_fails("fdatasync", fd)) return -1;
    return real_fdatasync(fd);
}

int ftruncate(int fd, off_t length) {
    REAL(ftruncate);
    if (descriptor_fails("ftruncate", fd)) return -1;
    return real_ftruncate(fd, length);
}

int ftruncate64(int fd, off64_t length) {
    REAL(ftruncate64);
    if (descriptor_fails("ftruncate64", fd)) return -1;
    return real_ftruncate64(fd, length);
}

int fallocate(int fd, int mode, off_t offset, off_t length) {
    REAL(fallocate);
    if (descriptor_fails("fallocate", fd)) return -1;
    return real_fallocate(fd, mode, offset, length);
}

int rename(const char *old, const char *new) {
    REAL(rename);
    if (name_fails("rename", AT_FDCWD, new)) return -1;
    return real_rename(old, new);
}

int renameat(int olddirfd, const char *old, int newdirfd, const char *new) {
    REAL(renameat);
    if (name_fails("renameat", newdirfd, new)) return -1;
    return real_renameat(olddirfd, old, newdirfd, new);
}

int renameat2(int olddirfd, const char *old, int newdirfd, const char *new, unsigned int flags) {
    REAL(renameat2);
    if (name_fails("renameat2", newdirfd, new)) return -1;
    return real_renameat2(olddirfd, old, newdirfd, new, flags);
}

int link(const char *old, const char *new) {
    REAL(link);
    if (name_fails("link", AT_FDCWD, new)) return -1;
    return real_link(old, new);
}

int linkat(int olddirfd, const char *old, int newdirfd, const char *new, int flags) {
    REAL(linkat);
    if (name_fails("linkat", newdirfd, new)) return -1;
    return real_linkat(olddirfd, old, newdirfd, new, flags);
}

/* The mode argument of an open that may create. */
#define OPEN_MODE(flags, mode) \
    mode_t mode = 0; \
    if ((flags) & (O_CREAT | __O_TMPFILE)) { va_list arguments; va_start(arguments, flags); mode = va_arg(arguments, mode_t); va_end(arguments); }

int open(const char *path, int flags, ...) {
    REAL(open);
    OPEN_MODE(flags, mode);
    if ((flags & O_CREAT) && name_fails("open", AT_FDCWD, path)) return -1;
    return real_open(path, flags, mode);
}

int open64(const char *path, int flags, ...) {
    REAL(open64);
    OPEN_MODE(flags, mode);
    if ((flags & O_CREAT) && name_fails("open64", AT_FDCWD, path)) return -1;
    return real_open64(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...) {
    REAL(openat);
    OPEN_MODE(flags, mode);
    if ((flags & O_CREAT) && name_fails("openat", dirfd, path)) return -1;
    return real_openat(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...) {
    REAL(openat64);
    OPEN_MODE(flags, mode);
    if ((flags & O_CREAT) && name_fails("openat64", dirfd, path)) return -1;
    return real_openat64(dirfd, path, flags, mode);
}
