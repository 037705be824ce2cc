-- The sync service's own database (archive-server --database): users, each user's
-- favorites with their sync stamps, and each user's devices. docs/SYNC-API.md.

-- A user. `token_hash` is SHA-256 of the user's bearer token (the token itself is
-- printed once and never stored); NULL once revoked. `feed` names the user's change
-- feed (16 random bytes): a client keeps its pull cursor under it, so a feed that is
-- replaced (the user removed and added again) is read from its start. `collected`: every
-- tombstone at or below this seq of the feed was dropped (a push composed before its
-- device had pulled that far is refused: it cannot know of them).
CREATE TABLE users (
    id         INTEGER PRIMARY KEY NOT NULL,
    name       TEXT    NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 64),
    token_hash BLOB    UNIQUE CHECK (token_hash IS NULL OR length(token_hash) = 32),
    feed       BLOB    NOT NULL UNIQUE CHECK (length(feed) = 16),
    seq        INTEGER NOT NULL DEFAULT 0,
    collected  INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
);

-- The latest state of each favorite of each user, as the merge rule picked it: stored
-- (the fields set) or removed (a tombstone, the fields NULL). `seq` orders the user's
-- feed: each accepted change takes the user's next seq.
CREATE TABLE user_favorites (
    user         INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    id           INTEGER NOT NULL CHECK (id > 0),
    stamp        INTEGER NOT NULL,
    device       BLOB    NOT NULL CHECK (length(device) = 16),
    seq          INTEGER NOT NULL,
    removed      INTEGER NOT NULL CHECK (removed IN (0, 1)),
    photo_url    TEXT,
    category     TEXT,
    dish_name    TEXT,
    shop_name    TEXT,
    introduction TEXT,
    stored_at    INTEGER,
    PRIMARY KEY (user, id)
) WITHOUT ROWID;

CREATE UNIQUE INDEX user_favorites_by_seq ON user_favorites (user, seq);

-- Each device of each user: how far the device has pushed its own feed (`pushed`, the
-- device's seq) and pulled the user's (`pulled`). A tombstone every device has pulled
-- is dropped.
CREATE TABLE user_devices (
    user      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    device    BLOB    NOT NULL CHECK (length(device) = 16),
    pushed    INTEGER NOT NULL DEFAULT 0,
    pulled    INTEGER NOT NULL DEFAULT 0,
    last_seen INTEGER NOT NULL,
    PRIMARY KEY (user, device)
) WITHOUT ROWID;
