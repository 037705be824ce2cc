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

/// Turns SQLite's defensive mode on (`on` = 1) or off for `db`: no writes to the schema
/// tables, no `PRAGMA writable_schema` tricks, no journal_mode=OFF. `sqlite3_db_config`
/// is variadic, which Swift cannot call: done here.
static inline int csqlite_set_defensive(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, (int *)0);
}

/// Whether the schema of `db` is trusted (`on` = 1) to call functions with side effects
/// from its views and triggers (`PRAGMA trusted_schema`'s setting, through the C API).
static inline int csqlite_set_trusted_schema(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, on, (int *)0);
}
