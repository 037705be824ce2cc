-- Favorites search: an index of the grams of every text field (json-server's `q`
-- over the favorite's fields, case-insensitive, 1- and 2-character keywords included).
-- The grams are made by the `archive_search` tokenizer, which the engine registers on
-- each connection (see SearchGrams); a connection without it cannot use this table.
-- detail=none: the index says which rows hold a gram; the engine checks each candidate.
-- The engine keeps it in step in the transactions that write favorites (store, refresh,
-- import, remove), with single-row statements: no triggers, whose statement savepoints
-- make this SQLite's FTS5 write its pending index out at every row.
CREATE VIRTUAL TABLE archive_objects_search USING fts5 (
    photo_url, category, dish_name, shop_name, introduction,
    content = 'archive_objects', content_rowid = 'id',
    detail = none, columnsize = 0, tokenize = 'archive_search'
);

-- Pending index data is written out every 8 MiB instead of every 1 MiB (FTS5's default):
-- about half the index's cost at import, measured, for 7 MiB more memory at most.
INSERT INTO archive_objects_search (archive_objects_search, rank) VALUES ('hashsize', 8388608);

-- The favorites already stored.
INSERT INTO archive_objects_search (archive_objects_search) VALUES ('rebuild');
