-- Favorites search: each run's blocks filed under one integer, run_key = run * 2^32 +
-- first_key, in a table whose key is its rowid. Migration 0004 filed them in a WITHOUT
-- ROWID table keyed by (run, first_key), whose entries hold the blocks themselves: a block
-- is larger than an entry of such a table can keep on its page, and SQLite reads the whole
-- of an entry that spills over to compare its key. So every step of every seek, for each
-- block written or looked up, read a block's pages: an import of 1,000,000 favorites read
-- 7.4 GB from its write-ahead log. A rowid table's seeks compare integers only.
--
-- The runs are made again rather than copied: every stored favorite waits for a run, and
-- the first open for writing indexes them, as after migration 0004.
DROP TABLE archive_search_blocks;
DELETE FROM archive_search_runs;

CREATE TABLE archive_search_blocks (
    run_key   INTEGER PRIMARY KEY NOT NULL,
    block     BLOB    NOT NULL,
    -- run_key's halves, for people reading the table: the engine seeks by run_key alone.
    run       INTEGER GENERATED ALWAYS AS (run_key >> 32) VIRTUAL,
    first_key INTEGER GENERATED ALWAYS AS (run_key & 4294967295) VIRTUAL
);

INSERT OR IGNORE INTO archive_search_pending (id) SELECT id FROM archive_objects;
