#include <sqlite3.h>

/// `SQLITE_TRANSIENT` is a macro casting -1 to a function pointer, which Swift
/// cannot import: this returns it so that text and blobs are copied by SQLite.
static inline sqlite3_destructor_type csqlite_transient(void) {
    return SQLITE_TRANSIENT;
}
