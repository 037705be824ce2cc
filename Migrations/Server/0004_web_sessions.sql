-- The web page (issue 60, docs/WEB.md): `archive-server devices link USER LABEL` makes a
-- one-time sign-in link; opening it signs a browser in as a new device of USER, whose
-- session is a device token like any other (`devices list` shows it, `devices revoke` ends it).
--
-- `sign_in_links`: SHA-256 of each link's secret (the secret is printed once, in the URL, never
-- stored), the user and the label the device will get, and when the link stops working. A
-- link is deleted when it is used: it signs in once.
CREATE TABLE sign_in_links (
    id         INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    user       INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    label      TEXT    NOT NULL CHECK (length(label) BETWEEN 1 AND 64),
    token_hash BLOB    NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);

CREATE INDEX sign_in_links_by_user ON sign_in_links (user);

-- When a token stops working (Unix milliseconds): a browser's session ends; NULL (a device's
-- token from `devices add`) never.
ALTER TABLE device_tokens ADD COLUMN expires_at INTEGER;

-- The page's favorites, newest first, a page at a time (keyset: stored_at, id).
CREATE INDEX user_favorites_newest ON user_favorites (user, stored_at DESC, id DESC) WHERE removed = 0;
