#include "raw_peer.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct raw_peer {
    sqlite3 *db;
    sqlite3_stmt *upsert;
    sqlite3_stmt *delete_one;
    sqlite3_stmt *member64;
    sqlite3_stmt *first_page;
    sqlite3_stmt *scan;
    // BEGIN IMMEDIATE and COMMIT prepared once, as the engine's connection keeps them.
    sqlite3_stmt *begin;
    sqlite3_stmt *commit;
    // Sync (migration 0006): the clock and seq, read and written once per transaction;
    // a removal's tombstone; a tombstone forgotten when its favorite is stored again.
    sqlite3_stmt *load_state;
    sqlite3_stmt *save_state;
    sqlite3_stmt *tombstone;
    sqlite3_stmt *forget_tombstone;
    int64_t clock, seq;
    void *index_context;
    raw_peer_index_fn index;
};

// The engine's writes: a new favorite, then its search index's work (the workload
// only stores new IDs, so the engine's refresh path never runs, here or there). The
// index (migration 0004) is runs the engine builds in Swift (ArchiveSearch), so the
// peer hands each new row to the engine's index writer, as the engine's store does.
static const char *UPSERT_SQL =
    "INSERT INTO archive_objects (id, photo_url, category, dish_name, shop_name, introduction, stored_at, stamp, device, seq) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 1, ?9) ON CONFLICT (id) DO NOTHING";
static const char *LOAD_STATE_SQL = "SELECT clock, seq FROM sync_state WHERE one = 1";
static const char *SAVE_STATE_SQL = "UPDATE sync_state SET clock = ?, seq = ? WHERE one = 1";
static const char *TOMBSTONE_SQL =
    "INSERT INTO archive_tombstones (id, stamp, device, seq) VALUES (?1, ?2, 1, ?3) "
    "ON CONFLICT (id) DO UPDATE SET stamp = excluded.stamp, device = excluded.device, seq = excluded.seq";
static const char *FORGET_TOMBSTONE_SQL = "DELETE FROM archive_tombstones WHERE id = ?";
static const char *DELETE_SQL = "DELETE FROM archive_objects WHERE id = ?";
static const char *FIRST_PAGE_SQL =
    "SELECT id, photo_url, category, dish_name, shop_name, introduction, stored_at FROM archive_objects "
    "ORDER BY stored_at DESC, id DESC LIMIT ?";

static const char *SCAN_SQL =
    "SELECT id, photo_url, category, dish_name, shop_name, introduction, stored_at FROM archive_objects "
    "WHERE instr(photo_url, ?1) > 0 OR instr(category, ?1) > 0 OR instr(dish_name, ?1) > 0 "
    "OR instr(shop_name, ?1) > 0 OR instr(introduction, ?1) > 0 "
    "ORDER BY stored_at DESC, id DESC LIMIT ?2";

static int exec(sqlite3 *db, const char *sql) { return sqlite3_exec(db, sql, NULL, NULL, NULL); }

/// Runs a prepared statement that returns no rows (BEGIN, COMMIT) and resets it: 0 when done.
static int run(sqlite3_stmt *stmt) {
    int stepped = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    return stepped == SQLITE_DONE ? 0 : -1;
}

static int check_migrations(sqlite3 *db, int count, const char *const *checksums) {
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(db, "SELECT version, checksum FROM schema_migrations ORDER BY version", -1, &stmt, NULL) != SQLITE_OK) {
        return -1;
    }
    int seen = 0, ok = 1;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
        const char *checksum = (const char *)sqlite3_column_text(stmt, 1);
        if (seen >= count || checksum == NULL || strcmp(checksum, checksums[seen]) != 0) ok = 0;
        seen++;
    }
    sqlite3_finalize(stmt);
    return ok ? seen : -1;
}

raw_peer *raw_peer_open(const char *path, int count, const int64_t *versions, const char *const *names,
                        const char *const *checksums, const char *const *migration_sql, int (*prepare)(void *db),
                        void *index_context, raw_peer_index_fn index) {
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK
        || (prepare != NULL && prepare(db) != 0)) {
        sqlite3_close_v2(db);
        return NULL;
    }
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, 5000);
    /* As the engine commits: synced before it returns, unless the run measures the cost of that
       (FAVORITE_ARCHIVE_BENCH_SYNCHRONOUS=normal, Fixtures.commitsUnsynced). */
    const char *synchronous = getenv("FAVORITE_ARCHIVE_BENCH_SYNCHRONOUS");
    const char *pragma = synchronous != NULL && strcmp(synchronous, "normal") == 0
        ? "PRAGMA synchronous = NORMAL" : "PRAGMA synchronous = FULL";
    if (exec(db, pragma) || exec(db, "PRAGMA foreign_keys = ON")
        || exec(db, "PRAGMA journal_mode = WAL")) {
        sqlite3_close_v2(db);
        return NULL;
    }
    int applied = check_migrations(db, count, checksums);
    if (applied < 0) {
        // A new file: create the schema as the engine would.
        if (exec(db, "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY NOT NULL, "
                     "name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)")) {
            sqlite3_close_v2(db);
            return NULL;
        }
        applied = check_migrations(db, count, checksums);
        if (applied != 0) { sqlite3_close_v2(db); return NULL; }
    }
    for (int index = applied; index < count; index++) {
        sqlite3_stmt *record = NULL;
        if (exec(db, "BEGIN IMMEDIATE") || exec(db, migration_sql[index])
            || sqlite3_prepare_v2(db, "INSERT INTO schema_migrations VALUES (?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ','now'))", -1, &record, NULL)) {
            exec(db, "ROLLBACK");
            sqlite3_close_v2(db);
            return NULL;
        }
        sqlite3_bind_int64(record, 1, versions[index]);
        sqlite3_bind_text(record, 2, names[index], -1, SQLITE_STATIC);
        sqlite3_bind_text(record, 3, checksums[index], -1, SQLITE_STATIC);
        int stepped = sqlite3_step(record);
        sqlite3_finalize(record);
        if (stepped != SQLITE_DONE || exec(db, "COMMIT")) {
            exec(db, "ROLLBACK");
            sqlite3_close_v2(db);
            return NULL;
        }
    }
    raw_peer *peer = calloc(1, sizeof(raw_peer));
    peer->db = db;
    peer->index_context = index_context;
    peer->index = index;
    char member[64 * 2 + 64] = "SELECT id FROM archive_objects WHERE id IN (?";
    for (int index = 1; index < 64; index++) strcat(member, ",?");
    strcat(member, ")");
    if (sqlite3_prepare_v3(db, UPSERT_SQL, -1, SQLITE_PREPARE_PERSISTENT, &peer->upsert, NULL)
        || sqlite3_prepare_v3(db, DELETE_SQL, -1, SQLITE_PREPARE_PERSISTENT, &peer->delete_one, NULL)
        || sqlite3_prepare_v3(db, member, -1, SQLITE_PREPARE_PERSISTENT, &peer->member64, NULL)
        || sqlite3_prepare_v3(db, FIRST_PAGE_SQL, -1, SQLITE_PREPARE_PERSISTENT, &peer->first_page, NULL)
        || sqlite3_prepare_v3(db, SCAN_SQL, -1, SQLITE_PREPARE_PERSISTENT, &peer->scan, NULL)
        || sqlite3_prepare_v3(db, "BEGIN IMMEDIATE TRANSACTION", -1, SQLITE_PREPARE_PERSISTENT, &peer->begin, NULL)
        || sqlite3_prepare_v3(db, "COMMIT TRANSACTION", -1, SQLITE_PREPARE_PERSISTENT, &peer->commit, NULL)
        || sqlite3_prepare_v3(db, LOAD_STATE_SQL, -1, SQLITE_PREPARE_PERSISTENT, &peer->load_state, NULL)
        || sqlite3_prepare_v3(db, SAVE_STATE_SQL, -1, SQLITE_PREPARE_PERSISTENT, &peer->save_state, NULL)
        || sqlite3_prepare_v3(db, TOMBSTONE_SQL, -1, SQLITE_PREPARE_PERSISTENT, &peer->tombstone, NULL)
        || sqlite3_prepare_v3(db, FORGET_TOMBSTONE_SQL, -1, SQLITE_PREPARE_PERSISTENT, &peer->forget_tombstone, NULL)) {
        raw_peer_close(peer);
        return NULL;
    }
    return peer;
}

void raw_peer_close(raw_peer *peer) {
    if (peer == NULL) return;
    sqlite3_finalize(peer->upsert);
    sqlite3_finalize(peer->delete_one);
    sqlite3_finalize(peer->member64);
    sqlite3_finalize(peer->first_page);
    sqlite3_finalize(peer->scan);
    sqlite3_finalize(peer->begin);
    sqlite3_finalize(peer->commit);
    sqlite3_finalize(peer->load_state);
    sqlite3_finalize(peer->save_state);
    sqlite3_finalize(peer->tombstone);
    sqlite3_finalize(peer->forget_tombstone);
    sqlite3_close_v2(peer->db);
    free(peer);
}

static int bind_row(sqlite3_stmt *stmt, const raw_row *row) {
    return sqlite3_bind_int64(stmt, 1, row->id)
        | sqlite3_bind_text(stmt, 2, row->photo_url, row->photo_url_len, SQLITE_STATIC)
        | sqlite3_bind_text(stmt, 3, row->category, row->category_len, SQLITE_STATIC)
        | sqlite3_bind_text(stmt, 4, row->dish_name, row->dish_name_len, SQLITE_STATIC)
        | sqlite3_bind_text(stmt, 5, row->shop_name, row->shop_name_len, SQLITE_STATIC)
        | sqlite3_bind_text(stmt, 6, row->introduction, row->introduction_len, SQLITE_STATIC)
        | sqlite3_bind_int64(stmt, 7, row->stored_at);
}

/// Reads the sync clock and seq at the start of a write transaction, as the engine's SyncLedger does.
static int load_state(raw_peer *peer) {
    int stepped = sqlite3_step(peer->load_state);
    if (stepped == SQLITE_ROW) {
        peer->clock = sqlite3_column_int64(peer->load_state, 0);
        peer->seq = sqlite3_column_int64(peer->load_state, 1);
    }
    sqlite3_reset(peer->load_state);
    return stepped == SQLITE_ROW ? 0 : -1;
}

/// Writes them back at its end.
static int save_state(raw_peer *peer) {
    sqlite3_bind_int64(peer->save_state, 1, peer->clock);
    sqlite3_bind_int64(peer->save_state, 2, peer->seq);
    return run(peer->save_state);
}

/// The next local stamp (HybridTimestamp.next): the wall clock's milliseconds when ahead
/// of the clock, else the clock's counter plus one.
static int64_t next_stamp(const raw_peer *peer) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t physical = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
    if (physical > (peer->clock >> 16)) return physical << 16;
    if ((peer->clock & 0xFFFF) < 0xFFFF) return peer->clock + 1;
    return ((peer->clock >> 16) + 1) << 16;
}

/// Stores one new row, stamped, and indexes it (`event`: in a bulk store, or alone), as the engine does.
static int store_row(raw_peer *peer, const raw_row *row, int event) {
    int64_t stamp = next_stamp(peer);
    int stepped = bind_row(peer->upsert, row) == SQLITE_OK
        && sqlite3_bind_int64(peer->upsert, 8, stamp) == SQLITE_OK
        && sqlite3_bind_int64(peer->upsert, 9, peer->seq + 1) == SQLITE_OK
        ? sqlite3_step(peer->upsert) : SQLITE_ERROR;
    sqlite3_reset(peer->upsert);
    if (stepped != SQLITE_DONE) return -1;
    if (sqlite3_changes(peer->db) == 0) return 0;
    sqlite3_bind_int64(peer->forget_tombstone, 1, row->id);
    if (run(peer->forget_tombstone)) return -1;
    peer->clock = stamp;
    peer->seq += 1;
    return peer->index(peer->index_context, peer->db, event, row);
}

/// Deletes one row, leaves its tombstone and tells the index, as the engine does.
static int delete_row(raw_peer *peer, const raw_row *row) {
    sqlite3_bind_int64(peer->delete_one, 1, row->id);
    int stepped = sqlite3_step(peer->delete_one);
    sqlite3_reset(peer->delete_one);
    if (stepped != SQLITE_DONE) return -1;
    if (sqlite3_changes(peer->db) > 0) {
        int64_t stamp = next_stamp(peer);
        sqlite3_bind_int64(peer->tombstone, 1, row->id);
        sqlite3_bind_int64(peer->tombstone, 2, stamp);
        sqlite3_bind_int64(peer->tombstone, 3, peer->seq + 1);
        if (run(peer->tombstone)) return -1;
        peer->clock = stamp;
        peer->seq += 1;
    }
    return peer->index(peer->index_context, peer->db, RAW_INDEX_REMOVED, row);
}

/// The engine's bulk insert: every row stored and handed to the index, which writes
/// a run every 8,192 and the last one at the end, in the same transaction.
int raw_peer_import(raw_peer *peer, const raw_row *rows, int64_t count) {
    if (run(peer->begin)) return -1;
    if (load_state(peer)) { exec(peer->db, "ROLLBACK"); return -1; }
    for (int64_t index = 0; index < count; index++) {
        if (store_row(peer, &rows[index], RAW_INDEX_BULK_ROW) != 0) {
            exec(peer->db, "ROLLBACK");
            return -1;
        }
    }
    if (peer->index(peer->index_context, peer->db, RAW_INDEX_BULK_END, NULL) != 0 || save_state(peer)) {
        exec(peer->db, "ROLLBACK");
        return -1;
    }
    return run(peer->commit);
}

int raw_peer_stored_ids(raw_peer *peer, const int64_t *ids, int count, int64_t *out) {
    if (count <= 0 || count > 64) return -1;
    for (int index = 0; index < 64; index++) {
        sqlite3_bind_int64(peer->member64, index + 1, ids[index < count ? index : count - 1]);
    }
    int found = 0;
    int stepped;
    while ((stepped = sqlite3_step(peer->member64)) == SQLITE_ROW) {
        out[found++] = sqlite3_column_int64(peer->member64, 0);
    }
    sqlite3_reset(peer->member64);
    return stepped == SQLITE_DONE ? found : -1;
}

int raw_peer_toggle(raw_peer *peer, const raw_row *row, int add) {
    if (run(peer->begin)) return -1;
    if (load_state(peer) || (add ? store_row(peer, row, RAW_INDEX_STORED) : delete_row(peer, row)) != 0 || save_state(peer)) {
        exec(peer->db, "ROLLBACK");
        return -1;
    }
    return run(peer->commit);
}

/// Steps `stmt` to its end, reading each row as a page does (IDs, dates, texts copied).
static int read_rows(sqlite3_stmt *stmt, int limit, char *scratch, int scratch_len) {
    int rows = 0, used = 0, stepped;
    while ((stepped = sqlite3_step(stmt)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(stmt, 0);
        int64_t stored_at = sqlite3_column_int64(stmt, 6);
        if (id <= 0 || stored_at == INT64_MIN) { sqlite3_reset(stmt); return -1; }  // as a caller would check
        for (int column = 1; column <= 5; column++) {
            const unsigned char *text = sqlite3_column_text(stmt, column);
            int length = sqlite3_column_bytes(stmt, column);
            if (used + length > scratch_len) used = 0;
            memcpy(scratch + used, text, (size_t)length);
            used += length;
        }
        rows++;
    }
    sqlite3_reset(stmt);
    if (stepped != SQLITE_DONE) return -1;
    return rows > limit ? limit : rows;
}

int raw_peer_page(raw_peer *peer, int limit, char *scratch, int scratch_len) {
    // The engine's page query and its work: one row more than asked (whether a next
    // page exists), every column read (the IDs and dates make the next cursor).
    sqlite3_bind_int64(peer->first_page, 1, limit + 1);
    return read_rows(peer->first_page, limit, scratch, scratch_len);
}

int raw_peer_scan(raw_peer *peer, const char *needle, int needle_len, int limit, char *scratch, int scratch_len) {
    sqlite3_bind_text(peer->scan, 1, needle, needle_len, SQLITE_STATIC);
    sqlite3_bind_int64(peer->scan, 2, limit + 1);
    return read_rows(peer->scan, limit, scratch, scratch_len);
}
