-- A token per device (issue 59): `archive-server devices add USER LABEL` gives each of a
-- user's devices its own token, which binds to the device ID it first syncs with, and
-- `devices revoke USER LABEL` stops one device without locking the others out.
--
-- `device_tokens`: SHA-256 of each token (the token itself is printed once, never stored),
-- its user and label, and `device`, the device ID it is bound to (NULL until its first
-- sync). `shared`: a token from before this migration (the one token a user's devices all
-- used): it keeps working for every device that has not a token of its own, and binds to
-- none; `devices revoke USER shared` ends it once each device has its own.
-- AUTOINCREMENT: a revoked token's row ID is never given to a later token (a request
-- checked against the revoked one must not pass as the new one's).
CREATE TABLE device_tokens (
    id         INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
    user       INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    label      TEXT    NOT NULL CHECK (length(label) BETWEEN 1 AND 64),
    token_hash BLOB    NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    device     BLOB    CHECK (device IS NULL OR length(device) = 16),
    shared     INTEGER NOT NULL DEFAULT 0 CHECK (shared IN (0, 1)),
    created_at INTEGER NOT NULL,
    UNIQUE (user, label)
);

-- One token per device ID of a user.
CREATE UNIQUE INDEX device_tokens_by_device ON device_tokens (user, device) WHERE device IS NOT NULL;

-- Every existing token becomes its user's shared token: every device keeps syncing.
-- `users.token_hash` is no longer read (SQLite cannot drop a UNIQUE column; PostgreSQL's
-- migration drops it).
INSERT INTO device_tokens (user, label, token_hash, shared, created_at)
SELECT id, 'shared', token_hash, 1, created_at FROM users WHERE token_hash IS NOT NULL;

UPDATE users SET token_hash = NULL;

-- The token each device syncs with: revoking the token forgets the device (its cursor
-- stops holding tombstones back).
ALTER TABLE user_devices ADD COLUMN token INTEGER REFERENCES device_tokens (id) ON DELETE CASCADE;

UPDATE user_devices SET token = (SELECT t.id FROM device_tokens AS t WHERE t.user = user_devices.user);

-- The devices of a user whose token was revoked sign in again with new tokens.
DELETE FROM user_devices WHERE token IS NULL;

CREATE INDEX user_devices_by_token ON user_devices (token);
