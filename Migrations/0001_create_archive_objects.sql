-- Favorites: archive objects the user hearted (the Realm objects of the original app).
-- stored_at is Unix time in milliseconds; pages are newest first by (stored_at, id).
CREATE TABLE archive_objects (
    id           INTEGER PRIMARY KEY NOT NULL CHECK (id > 0),
    photo_url    TEXT    NOT NULL,
    category     TEXT    NOT NULL,
    dish_name    TEXT    NOT NULL CHECK (dish_name <> ''),
    shop_name    TEXT    NOT NULL,
    introduction TEXT    NOT NULL,
    stored_at    INTEGER NOT NULL
);

CREATE INDEX archive_objects_by_stored_at ON archive_objects (stored_at DESC, id DESC);
