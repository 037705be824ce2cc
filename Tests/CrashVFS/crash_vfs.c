#include "crash_vfs.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One change no sync has made durable yet, with what it replaced. */
enum op_kind { OP_WRITE, OP_TRUNCATE, OP_DELETE };

typedef struct op {
    enum op_kind kind;
    char *path;
    sqlite3_int64 offset;      /* a write's offset; a truncation's new size */
    sqlite3_int64 amount;      /* a write's length */
    unsigned char *before;     /* a write: the bytes it replaced (those below size_before);
                                  a truncation: the tail it cut; a deletion: the whole file */
    sqlite3_int64 before_length;
    sqlite3_int64 size_before; /* the file's size before the change */
} op;

static struct {
    pthread_mutex_t lock;
    sqlite3_vfs *root;
    long events;
    long crash_point;
    int crashed;
    op *ops;
    size_t count;
    size_t capacity;
    long calls;        /* I/O calls since crash_vfs_fail_at */
    long fail_point;
    int fail_full;
    int failed;
} state = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The injected error for this I/O call, or SQLITE_OK. `code` is the call's own I/O error;
   `can_fill` says whether it writes (SQLITE_FULL is then possible). */
static int injected(int code, int can_fill) {
    pthread_mutex_lock(&state.lock);
    state.calls += 1;
    int result = SQLITE_OK;
    if (state.fail_point > 0 && state.calls == state.fail_point) {
        state.failed = 1;
        result = state.fail_full && can_fill ? SQLITE_FULL : code;
    }
    pthread_mutex_unlock(&state.lock);
    return result;
}

typedef struct crash_file {
    sqlite3_file base;
    sqlite3_file *real;  /* the wrapped file, allocated right after this struct */
    char *path;          /* NULL for a file without a name (temporary) */
} crash_file;

/* Counts an event; 1 when the power is gone (this event included). Called under the lock. */
static int power_gone(void) {
    if (state.crashed) return 1;
    state.events += 1;
    if (state.crash_point > 0 && state.events >= state.crash_point) {
        state.crashed = 1;
        return 1;
    }
    return 0;
}

static int record(enum op_kind kind, const char *path, sqlite3_int64 offset, sqlite3_int64 amount,
                  unsigned char *before, sqlite3_int64 before_length, sqlite3_int64 size_before) {
    if (state.count == state.capacity) {
        size_t capacity = state.capacity ? state.capacity * 2 : 256;
        op *grown = realloc(state.ops, capacity * sizeof(op));
        if (grown == NULL) return SQLITE_NOMEM;
        state.ops = grown;
        state.capacity = capacity;
    }
    char *copy = strdup(path);
    if (copy == NULL) return SQLITE_NOMEM;
    state.ops[state.count++] = (op){ kind, copy, offset, amount, before, before_length, size_before };
    return SQLITE_OK;
}

static void forget(size_t index) {
    free(state.ops[index].path);
    free(state.ops[index].before);
}

/* Forgets the records of `path`: a sync made its changes durable. */
static void synced(const char *path) {
    size_t kept = 0;
    for (size_t i = 0; i < state.count; i++) {
        if (strcmp(state.ops[i].path, path) == 0) {
            forget(i);
        } else {
            state.ops[kept++] = state.ops[i];
        }
    }
    state.count = kept;
}

/* Reads `length` bytes at `offset` of the file at `path` into a new buffer (NULL on failure):
   for a file about to be removed, which SQLite holds no lock on (a journal, a WAL). */
static unsigned char *read_range(const char *path, sqlite3_int64 offset, sqlite3_int64 length) {
    unsigned char *buffer = malloc(length > 0 ? (size_t)length : 1);
    if (buffer == NULL) return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { free(buffer); return NULL; }
    sqlite3_int64 done = 0;
    while (done < length) {
        ssize_t got = pread(fd, buffer + done, (size_t)(length - done), offset + done);
        if (got <= 0) break;
        done += got;
    }
    close(fd);
    if (done < length) memset(buffer + done, 0, (size_t)(length - done));
    return buffer;
}

/* Reads `length` bytes at `offset` of an open file through its own handle into a new buffer
   (NULL on failure). Not by opening its path again: closing a second descriptor of a file
   drops every POSIX lock this process holds on it, SQLite's included. */
static unsigned char *read_open(sqlite3_file *real, sqlite3_int64 offset, sqlite3_int64 length) {
    unsigned char *buffer = malloc(length > 0 ? (size_t)length : 1);
    if (buffer == NULL) return NULL;
    int rc = real->pMethods->xRead(real, buffer, (int)length, offset);
    if (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ) { free(buffer); return NULL; }
    return buffer;
}

static sqlite3_int64 size_of(const char *path) {
    struct stat info;
    return stat(path, &info) == 0 ? (sqlite3_int64)info.st_size : -1;
}

/* MARK: - The file's methods */

static int crash_close(sqlite3_file *file) {
    crash_file *self = (crash_file *)file;
    int rc = self->real->pMethods ? self->real->pMethods->xClose(self->real) : SQLITE_OK;
    sqlite3_free(self->path);
    self->path = NULL;
    return rc;
}

static int crash_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    crash_file *self = (crash_file *)file;
    int failure = injected(SQLITE_IOERR_READ, 0);
    if (failure != SQLITE_OK) return failure;
    return self->real->pMethods->xRead(self->real, buffer, amount, offset);
}

/* Counts the event of a change about to be made to `self` and records it with the bytes it
   replaces, [from, to) clipped to the file's size. SQLITE_OK, or the error to return
   instead of making the change (the power is gone, or the record could not be made). */
static int before_change(crash_file *self, enum op_kind kind, sqlite3_int64 offset, sqlite3_int64 amount,
                         sqlite3_int64 from, sqlite3_int64 to, int error) {
    pthread_mutex_lock(&state.lock);
    int rc = SQLITE_OK;
    if (power_gone()) {
        rc = error;
    } else if (self->path != NULL) {
        sqlite3_int64 size = 0;
        self->real->pMethods->xFileSize(self->real, &size);
        sqlite3_int64 length = (to < size ? to : size) - from;
        if (length < 0) length = 0;
        unsigned char *before = length > 0 ? read_open(self->real, from, length) : NULL;
        if ((length > 0 && before == NULL) || record(kind, self->path, offset, amount, before, length, size) != SQLITE_OK) {
            free(before);
            rc = error;
        }
    }
    pthread_mutex_unlock(&state.lock);
    return rc;
}

static int crash_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    crash_file *self = (crash_file *)file;
    int rc = injected(SQLITE_IOERR_WRITE, 1);
    if (rc == SQLITE_OK) rc = before_change(self, OP_WRITE, offset, amount, offset, offset + amount, SQLITE_IOERR_WRITE);
    return rc != SQLITE_OK ? rc : self->real->pMethods->xWrite(self->real, buffer, amount, offset);
}

static int crash_truncate(sqlite3_file *file, sqlite3_int64 size) {
    crash_file *self = (crash_file *)file;
    int rc = injected(SQLITE_IOERR_TRUNCATE, 1);
    if (rc == SQLITE_OK) rc = before_change(self, OP_TRUNCATE, size, 0, size, INT64_MAX, SQLITE_IOERR_TRUNCATE);
    return rc != SQLITE_OK ? rc : self->real->pMethods->xTruncate(self->real, size);
}

static int crash_sync(sqlite3_file *file, int flags) {
    crash_file *self = (crash_file *)file;
    int failure = injected(SQLITE_IOERR_FSYNC, 0);
    if (failure != SQLITE_OK) return failure;
    pthread_mutex_lock(&state.lock);
    if (power_gone()) { pthread_mutex_unlock(&state.lock); return SQLITE_IOERR_FSYNC; }
    pthread_mutex_unlock(&state.lock);
    int rc = self->real->pMethods->xSync(self->real, flags);
    if (rc == SQLITE_OK && self->path != NULL) {
        pthread_mutex_lock(&state.lock);
        synced(self->path);
        pthread_mutex_unlock(&state.lock);
    }
    return rc;
}

static int crash_file_size(sqlite3_file *file, sqlite3_int64 *size) {
    crash_file *self = (crash_file *)file;
    return self->real->pMethods->xFileSize(self->real, size);
}

static int crash_lock(sqlite3_file *file, int level) {
    crash_file *self = (crash_file *)file;
    int failure = injected(SQLITE_IOERR_LOCK, 0);
    if (failure != SQLITE_OK) return failure;
    return self->real->pMethods->xLock(self->real, level);
}

static int crash_unlock(sqlite3_file *file, int level) {
    crash_file *self = (crash_file *)file;
    return self->real->pMethods->xUnlock(self->real, level);
}

static int crash_check_reserved_lock(sqlite3_file *file, int *out) {
    crash_file *self = (crash_file *)file;
    return self->real->pMethods->xCheckReservedLock(self->real, out);
}

static int crash_file_control(sqlite3_file *file, int op, void *argument) {
    crash_file *self = (crash_file *)file;
    return self->real->pMethods->xFileControl(self->real, op, argument);
}

static int crash_sector_size(sqlite3_file *file) {
    crash_file *self = (crash_file *)file;
    return self->real->pMethods->xSectorSize(self->real);
}

static int crash_device_characteristics(sqlite3_file *file) {
    crash_file *self = (crash_file *)file;
    /* Nothing the disk promises: no atomic or safe-append writes, so SQLite syncs what it must. */
    return self->real->pMethods->xDeviceCharacteristics(self->real)
        & ~(SQLITE_IOCAP_ATOMIC | SQLITE_IOCAP_SAFE_APPEND | SQLITE_IOCAP_SEQUENTIAL | SQLITE_IOCAP_POWERSAFE_OVERWRITE
            | SQLITE_IOCAP_BATCH_ATOMIC);
}

static int crash_shm_map(sqlite3_file *file, int page, int size, int extend, void volatile **out) {
    crash_file *self = (crash_file *)file;
    return self->real->pMethods->xShmMap(self->real, page, size, extend, out);
}

static int crash_shm_lock(sqlite3_file *file, int offset, int n, int flags) {
    crash_file *self = (crash_file *)file;
    return self->real->pMethods->xShmLock(self->real, offset, n, flags);
}

static void crash_shm_barrier(sqlite3_file *file) {
    crash_file *self = (crash_file *)file;
    self->real->pMethods->xShmBarrier(self->real);
}

static int crash_shm_unmap(sqlite3_file *file, int delete_flag) {
    crash_file *self = (crash_file *)file;
    return self->real->pMethods->xShmUnmap(self->real, delete_flag);
}

static const sqlite3_io_methods crash_io_methods = {
    2, /* no memory-mapped reads: every read goes through xRead */
    crash_close, crash_read, crash_write, crash_truncate, crash_sync, crash_file_size,
    crash_lock, crash_unlock, crash_check_reserved_lock, crash_file_control, crash_sector_size,
    crash_device_characteristics, crash_shm_map, crash_shm_lock, crash_shm_barrier, crash_shm_unmap,
    NULL, NULL,
};

/* MARK: - The VFS's methods */

static int crash_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    crash_file *self = (crash_file *)file;
    memset(self, 0, sizeof(*self));
    self->real = (sqlite3_file *)(self + 1);
    int rc = state.root->xOpen(state.root, name, self->real, flags, out_flags);
    if (rc != SQLITE_OK) {
        self->base.pMethods = NULL;
        return rc;
    }
    if (name != NULL && !(flags & SQLITE_OPEN_DELETEONCLOSE)) {
        self->path = sqlite3_mprintf("%s", name);
        if (self->path == NULL) {
            self->real->pMethods->xClose(self->real);
            self->base.pMethods = NULL;
            return SQLITE_NOMEM;
        }
    }
    self->base.pMethods = &crash_io_methods;
    return SQLITE_OK;
}

static int crash_delete(sqlite3_vfs *vfs, const char *path, int sync_directory) {
    (void)vfs;
    int failure = injected(SQLITE_IOERR_DELETE, 0);
    if (failure != SQLITE_OK) return failure;
    pthread_mutex_lock(&state.lock);
    if (power_gone()) { pthread_mutex_unlock(&state.lock); return SQLITE_IOERR_DELETE; }
    if (!sync_directory) {
        /* A removal no directory sync makes durable: a power cut can bring the file back. */
        sqlite3_int64 size = size_of(path);
        if (size >= 0) {
            unsigned char *content = read_range(path, 0, size);
            if (content == NULL || record(OP_DELETE, path, 0, 0, content, size, size) != SQLITE_OK) {
                free(content);
                pthread_mutex_unlock(&state.lock);
                return SQLITE_IOERR_DELETE;
            }
        }
    } else {
        synced(path);
    }
    pthread_mutex_unlock(&state.lock);
    return state.root->xDelete(state.root, path, sync_directory);
}

static int crash_access(sqlite3_vfs *vfs, const char *path, int flags, int *out) {
    (void)vfs;
    return state.root->xAccess(state.root, path, flags, out);
}

static int crash_full_pathname(sqlite3_vfs *vfs, const char *path, int size, char *out) {
    (void)vfs;
    return state.root->xFullPathname(state.root, path, size, out);
}

static void *crash_dl_open(sqlite3_vfs *vfs, const char *path) { (void)vfs; return state.root->xDlOpen(state.root, path); }
static void crash_dl_error(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; state.root->xDlError(state.root, size, out); }
static void (*crash_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return state.root->xDlSym(state.root, handle, symbol);
}
static void crash_dl_close(sqlite3_vfs *vfs, void *handle) { (void)vfs; state.root->xDlClose(state.root, handle); }
static int crash_randomness(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; return state.root->xRandomness(state.root, size, out); }
static int crash_sleep(sqlite3_vfs *vfs, int microseconds) { (void)vfs; return state.root->xSleep(state.root, microseconds); }
static int crash_current_time(sqlite3_vfs *vfs, double *out) { (void)vfs; return state.root->xCurrentTime(state.root, out); }
static int crash_get_last_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return state.root->xGetLastError ? state.root->xGetLastError(state.root, size, out) : 0;
}
static int crash_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
    (void)vfs;
    return state.root->xCurrentTimeInt64(state.root, out);
}

static sqlite3_vfs crash_vfs = {
    2, 0, 0, NULL, "crash", NULL,
    crash_open, crash_delete, crash_access, crash_full_pathname,
    crash_dl_open, crash_dl_error, crash_dl_sym, crash_dl_close,
    crash_randomness, crash_sleep, crash_current_time, crash_get_last_error, crash_current_time_int64,
    NULL, NULL, NULL,
};

int crash_vfs_register(void) {
    pthread_mutex_lock(&state.lock);
    if (state.root == NULL) {
        sqlite3_vfs *root = sqlite3_vfs_find(NULL);
        if (root == NULL) { pthread_mutex_unlock(&state.lock); return SQLITE_ERROR; }
        crash_vfs.szOsFile = (int)sizeof(crash_file) + root->szOsFile;
        crash_vfs.mxPathname = root->mxPathname;
        state.root = root;
        int rc = sqlite3_vfs_register(&crash_vfs, 0);
        if (rc != SQLITE_OK) { state.root = NULL; pthread_mutex_unlock(&state.lock); return rc; }
    }
    pthread_mutex_unlock(&state.lock);
    return SQLITE_OK;
}

/* Forgets every record and counter, then arms a crash point and a failure point. */
static void reset(long crash_point, long fail_point, int fail_full) {
    pthread_mutex_lock(&state.lock);
    for (size_t i = 0; i < state.count; i++) forget(i);
    state.count = 0;
    state.events = 0;
    state.crash_point = crash_point;
    state.crashed = 0;
    state.calls = 0;
    state.fail_point = fail_point;
    state.fail_full = fail_full;
    state.failed = 0;
    pthread_mutex_unlock(&state.lock);
}

void crash_vfs_arm(long crash_point) { reset(crash_point, 0, 0); }

long crash_vfs_events(void) {
    pthread_mutex_lock(&state.lock);
    long events = state.events;
    pthread_mutex_unlock(&state.lock);
    return events;
}

void crash_vfs_fail_at(long point, int full) { reset(0, point, full); }

long crash_vfs_calls(void) {
    pthread_mutex_lock(&state.lock);
    long calls = state.calls;
    pthread_mutex_unlock(&state.lock);
    return calls;
}

int crash_vfs_failed(void) {
    pthread_mutex_lock(&state.lock);
    int failed = state.failed;
    pthread_mutex_unlock(&state.lock);
    return failed;
}

void crash_vfs_cut_now(void) {
    pthread_mutex_lock(&state.lock);
    state.crashed = 1;
    pthread_mutex_unlock(&state.lock);
}

int crash_vfs_crashed(void) {
    pthread_mutex_lock(&state.lock);
    int crashed = state.crashed;
    pthread_mutex_unlock(&state.lock);
    return crashed;
}

/* MARK: - The power cut */

/* A small seeded generator (xorshift32): the same seed, the same torn files. */
static unsigned int next_random(unsigned int *seed) {
    unsigned int x = *seed ? *seed : 0x9E3779B9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *seed = x;
    return x;
}

static int write_all(int fd, const unsigned char *bytes, sqlite3_int64 length, sqlite3_int64 offset) {
    sqlite3_int64 done = 0;
    while (done < length) {
        ssize_t wrote = pwrite(fd, bytes + done, (size_t)(length - done), offset + done);
        if (wrote < 0) { if (errno == EINTR) continue; return errno; }
        done += wrote;
    }
    return 0;
}

/* Puts back what [from, to) of a write replaced: its old bytes below the size the file had,
   zeros past it (a hole the file system may leave). */
static int undo_write_range(int fd, const op *change, sqlite3_int64 from, sqlite3_int64 to) {
    static const unsigned char zeros[512];
    for (sqlite3_int64 at = from; at < to;) {
        sqlite3_int64 end = to;
        if (at < change->offset + change->before_length) {
            if (end > change->offset + change->before_length) end = change->offset + change->before_length;
            int rc = write_all(fd, change->before + (at - change->offset), end - at, at);
            if (rc) return rc;
        } else {
            if (end - at > (sqlite3_int64)sizeof(zeros)) end = at + (sqlite3_int64)sizeof(zeros);
            int rc = write_all(fd, zeros, end - at, at);
            if (rc) return rc;
        }
        at = end;
    }
    return 0;
}

int crash_vfs_power_cut(int mode, unsigned int seed) {
    pthread_mutex_lock(&state.lock);
    int result = 0;
    size_t count = state.count;
    /* kept[n]: change n survives (a write: at least one of its sectors). lost[n]: change n is
       undone whatever the draw, because it follows a removal of its file that is undone: the
       old file comes back, and the one made after it never existed. */
    char *kept = calloc(count ? count : 1, 1);
    char *lost = calloc(count ? count : 1, 1);
    if (kept == NULL || lost == NULL) { free(kept); free(lost); pthread_mutex_unlock(&state.lock); return ENOMEM; }
    for (size_t n = 0; n < count; n++) {
        if (state.ops[n].kind != OP_DELETE) continue;
        int keep = mode == CRASH_VFS_KEEP_ALL || (mode == CRASH_VFS_TEAR && (next_random(&seed) & 1));
        if (lost[n]) keep = 0;
        kept[n] = (char)keep;
        if (keep) continue;
        for (size_t later = n + 1; later < count; later++) {
            if (strcmp(state.ops[later].path, state.ops[n].path) == 0) lost[later] = 1;
        }
    }
    /* Newest first: undoing a change restores what the one before it left. */
    for (size_t n = count; n-- > 0 && result == 0;) {
        op *change = &state.ops[n];
        switch (change->kind) {
        case OP_DELETE: {
            if (kept[n]) break;
            int fd = open(change->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (fd < 0) { result = errno; break; }
            result = write_all(fd, change->before, change->before_length, 0);
            close(fd);
            break;
        }
        case OP_TRUNCATE: {
            kept[n] = !lost[n] && (mode == CRASH_VFS_KEEP_ALL || (mode == CRASH_VFS_TEAR && (next_random(&seed) & 1)));
            if (kept[n] || change->before_length == 0) break;
            int fd = open(change->path, O_WRONLY | O_CLOEXEC);
            if (fd < 0) { result = errno == ENOENT ? 0 : errno; break; }
            result = write_all(fd, change->before, change->before_length, change->offset);
            close(fd);
            break;
        }
        case OP_WRITE: {
            if (mode == CRASH_VFS_KEEP_ALL && !lost[n]) { kept[n] = 1; break; }
            int fd = open(change->path, O_WRONLY | O_CLOEXEC);
            if (fd < 0) { result = errno == ENOENT ? 0 : errno; break; }
            sqlite3_int64 end = change->offset + change->amount;
            for (sqlite3_int64 at = change->offset; at < end && result == 0;) {
                sqlite3_int64 sector_end = (at / 512 + 1) * 512;
                if (sector_end > end) sector_end = end;
                int keep = !lost[n] && mode == CRASH_VFS_TEAR && (next_random(&seed) & 1);
                if (keep) {
                    kept[n] = 1;  /* the file reaches at least this far */
                } else {
                    result = undo_write_range(fd, change, at, sector_end);
                }
                at = sector_end;
            }
            close(fd);
            break;
        }
        }
    }
    /* Each file's size: as of its first recorded change (its last sync), then moved by the
       changes kept, in the order they happened. */
    for (size_t i = 0; i < count && result == 0; i++) {
        const char *path = state.ops[i].path;
        int first = 1;
        for (size_t j = 0; j < i; j++) if (strcmp(state.ops[j].path, path) == 0) { first = 0; break; }
        if (!first) continue;
        sqlite3_int64 size = state.ops[i].size_before;
        int deleted = 0;
        for (size_t j = i; j < count; j++) {
            const op *change = &state.ops[j];
            if (strcmp(change->path, path) != 0 || !kept[j]) continue;
            if (change->kind == OP_DELETE) { deleted = 1; size = 0; continue; }
            deleted = 0;
            if (change->kind == OP_WRITE && change->offset + change->amount > size) size = change->offset + change->amount;
            if (change->kind == OP_TRUNCATE) size = change->offset;
        }
        if (deleted) {
            if (unlink(path) != 0 && errno != ENOENT) result = errno;
        } else if (size_of(path) >= 0 && truncate(path, size) != 0) {
            result = errno;
        }
    }
    free(kept);
    free(lost);
    for (size_t i = 0; i < count; i++) forget(i);
    state.count = 0;
    pthread_mutex_unlock(&state.lock);
    return result;
}
