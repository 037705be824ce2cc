-- Favorites search: an index of the grams of every text field (json-server's `q`
-- over the favorite's fields, case-insensitive, 1- and 2-character keywords included).
-- The grams are made by the `archive_search` tokenizer, which the engine registers on
-- each connection (see SearchGrams); a connection without it cannot write favorites.
-- detail=none: the index says which rows hold a gram; the engine checks each candidate.
CREATE VIRTUAL TABLE archive_objects_search USING fts5 (
    photo_url, category, dish_name, shop_name, introduction,
    content = 'archive_objects', content_rowid = 'id',
    detail = none, columnsize = 0, tokenize = 'archive_search'
);

-- The favorites already stored.
INSERT INTO archive_objects_search (archive_objects_search) VALUES ('rebuild');

-- Kept in step by the transactions that write favorites (store, refresh, import, remove).
CREATE TRIGGER archive_objects_search_insert AFTER INSERT ON archive_objects BEGIN
    INSERT INTO archive_objects_search (rowid, photo_url, category, dish_name, shop_name, introduction)
    VALUES (new.id, new.photo_url, new.category, new.dish_name, new.shop_name, new.introduction);
END;

CREATE TRIGGER archive_objects_search_delete AFTER DELETE ON archive_objects BEGIN
    INSERT INTO archive_objects_search (archive_objects_search, rowid, photo_url, category, dish_name, shop_name, introduction)
    VALUES ('delete', old.id, old.photo_url, old.category, old.dish_name, old.shop_name, old.introduction);
END;

CREATE TRIGGER archive_objects_search_update
AFTER UPDATE OF id, photo_url, category, dish_name, shop_name, introduction ON archive_objects
WHEN old.id IS NOT new.id OR old.photo_url IS NOT new.photo_url OR old.category IS NOT new.category
    OR old.dish_name IS NOT new.dish_name OR old.shop_name IS NOT new.shop_name
    OR old.introduction IS NOT new.introduction
BEGIN
    INSERT INTO archive_objects_search (archive_objects_search, rowid, photo_url, category, dish_name, shop_name, introduction)
    VALUES ('delete', old.id, old.photo_url, old.category, old.dish_name, old.shop_name, old.introduction);
    INSERT INTO archive_objects_search (rowid, photo_url, category, dish_name, shop_name, introduction)
    VALUES (new.id, new.photo_url, new.category, new.dish_name, new.shop_name, new.introduction);
END;
