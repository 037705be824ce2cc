#include <sqlite3.h>
#include <stddef.h>

/// `SQLITE_TRANSIENT` is a macro casting -1 to a function pointer, which Swift
/// cannot import: this returns it so that text and blobs are copied by SQLite.
static inline sqlite3_destructor_type csqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// The FTS5 API of the connection `db`, or NULL when SQLite was built without
/// FTS5. FTS5 hands it out through a pointer-passing query (`SELECT fts5(?1)`),
/// whose type tag must be a C string that outlives the statement: done here.
static inline fts5_api *csqlite_fts5_api(sqlite3 *db) {
    fts5_api *api = NULL;
    sqlite3_stmt *statement = NULL;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, NULL) != SQLITE_OK) return NULL;
    sqlite3_bind_pointer(statement, 1, (void *)&api, "fts5_api_ptr", NULL);
    sqlite3_step(statement);
    sqlite3_finalize(statement);
    return api;
}
