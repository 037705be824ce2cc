#ifndef CRASH_VFS_H
#define CRASH_VFS_H

/*
 * A SQLite VFS for tests that cut the power, after SQLite's own crash tests (test6.c).
 *
 * "crash" wraps the default VFS and passes every call through, recording each write,
 * truncation and deletion since the file's last sync together with the bytes it replaced.
 * At crash point N (the Nth write, truncation, deletion or sync counted since
 * crash_vfs_arm), that call and every later one fails with an I/O error and changes
 * nothing: the power is gone. Once the test has closed its connections,
 * crash_vfs_power_cut rewrites the files as a power cut could have left them: every change
 * no sync made durable kept or undone, as the mode says. Directory entries are not
 * modelled (a new file's name is checked by the strace tests instead).
 *
 * The same VFS fails the Nth I/O call once, the power on (crash_vfs_fail_at), after
 * SQLite's I/O-error tests.
 *
 * One workload at a time per process: the state is global (guarded by a mutex).
 */

/* Registers the VFS "crash" (not as the default). Returns SQLITE_OK or SQLite's error. */
int crash_vfs_register(void);

/* Forgets every record and starts counting events again; the power goes at event
   `crash_point` (1-based), or never when it is 0. */
void crash_vfs_arm(long crash_point);

/* The events (writes, truncations, deletions, syncs) counted since crash_vfs_arm. */
long crash_vfs_events(void);

/* The power goes now: this and every later event fails, as at a crash point. */
void crash_vfs_cut_now(void);

/* 1 once the crash point was reached. */
int crash_vfs_crashed(void);

/* Fails the Nth I/O call (a read, write, truncation, sync, lock or deletion, counted from
   this call) once, with the call's own SQLITE_IOERR_* code, or with SQLITE_FULL for a write
   or truncation when `full` is 1; every other call passes through, and the power stays on.
   0 fails none. Also forgets every power-cut record (as crash_vfs_arm(0) does). */
void crash_vfs_fail_at(long point, int full);

/* The I/O calls counted since crash_vfs_fail_at. */
long crash_vfs_calls(void);

/* 1 once the failure was returned. */
int crash_vfs_failed(void);

/* How a power cut treats the changes no sync made durable. */
enum crash_vfs_mode {
    /* Every one is lost: the files as of their last syncs. */
    CRASH_VFS_DROP_ALL = 0,
    /* Each write is kept or lost 512-byte sector by sector, each truncation and deletion
       kept or lost, at random (seeded): torn and reordered writes. */
    CRASH_VFS_TEAR = 1,
    /* Every one is kept: the process died, the power did not. */
    CRASH_VFS_KEEP_ALL = 2,
};

/* Applies a power cut to the files the recorded changes touched, then forgets the records.
   Call with every connection through the VFS closed. Returns 0, or an errno. */
int crash_vfs_power_cut(int mode, unsigned int seed);

#endif
