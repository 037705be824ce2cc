#ifndef RAW_PEER_H
#define RAW_PEER_H

#include <stdint.h>

/// One favorite as C sees it: UTF-8 texts with their lengths.
typedef struct {
    int64_t id;
    const char *photo_url; int photo_url_len;
    const char *category; int category_len;
    const char *dish_name; int dish_name_len;
    const char *shop_name; int shop_name_len;
    const char *introduction; int introduction_len;
    int64_t stored_at;
} raw_row;

/// A connection with its prepared statements.
typedef struct raw_peer raw_peer;

/// What the search index is told: a row a bulk store inserted, the end of that
/// store (before its commit), a row stored alone, a row removed alone.
enum { RAW_INDEX_BULK_ROW = 0, RAW_INDEX_BULK_END = 1, RAW_INDEX_STORED = 2, RAW_INDEX_REMOVED = 3 };

/// Keeps the search index in step, inside the peer's transaction on `db`: the
/// engine's index writer (`row` is NULL for RAW_INDEX_BULK_END). Returns 0 on success.
typedef int (*raw_peer_index_fn)(void *context, void *db, int event, const raw_row *row);

/// Opens `path` with the engine's flags and pragmas, then checks its migrations:
/// `schema_migrations` must hold exactly `count` rows whose checksums are `checksums`.
/// A new file gets the schema from `migration_sql` (recorded with `versions`, `names`, `checksums`).
/// `prepare` runs on the new connection first (the engine's FTS5 tokenizer, which
/// migration 0003 names, is registered there); it returns 0 on success. `index` is
/// called with `index_context` for every change to the favorites.
/// Returns NULL on any failure.
raw_peer *raw_peer_open(const char *path, int count, const int64_t *versions, const char *const *names,
                        const char *const *checksums, const char *const *migration_sql, int (*prepare)(void *db),
                        void *index_context, raw_peer_index_fn index);
void raw_peer_close(raw_peer *peer);

/// Upserts `count` rows in one IMMEDIATE transaction. Returns 0 on success.
int raw_peer_import(raw_peer *peer, const raw_row *rows, int64_t count);

/// Which of `ids` (at most 64) are stored, through the engine's 64-parameter IN query.
/// Writes them to `out` and returns their count, or -1.
int raw_peer_stored_ids(raw_peer *peer, const int64_t *ids, int count, int64_t *out);

/// Stores (`add` != 0) or deletes one row, in its own committed transaction. Returns 0 on success.
int raw_peer_toggle(raw_peer *peer, const raw_row *row, int add);

/// Reads the `limit` newest rows, copying their texts into `scratch`. Returns the rows read, or -1.
int raw_peer_page(raw_peer *peer, int limit, char *scratch, int scratch_len);

/// The favorites search done by a full scan: `instr` of `needle` in each text column
/// (case-sensitive, so less work than the engine's case-insensitive semantics), newest
/// first, the `limit` first rows read as a page is. Returns the rows read, or -1.
int raw_peer_scan(raw_peer *peer, const char *needle, int needle_len, int limit, char *scratch, int scratch_len);

#endif
