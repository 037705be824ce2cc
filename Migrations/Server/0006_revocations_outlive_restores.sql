-- What was revoked stays revoked when an older copy is put back (issue 73): every
-- credential that stops working (a device token revoked or replaced, a browser signed
-- out, a sign-in link used or expired, every token of a removed user) leaves its hash
-- here, and every removed user its ID, by triggers, so that no path that deletes one can
-- forget to. `archive-server restore` reads these of the database it replaces and deletes
-- the same credentials and users in the copy it puts in its place (UserDirectory.restore).
CREATE TABLE revoked_tokens (
    token_hash BLOB PRIMARY KEY NOT NULL CHECK (length(token_hash) = 32)
) WITHOUT ROWID;

CREATE TABLE removed_users (
    id INTEGER PRIMARY KEY NOT NULL
);

CREATE TRIGGER device_tokens_revoked AFTER DELETE ON device_tokens
BEGIN
    INSERT OR IGNORE INTO revoked_tokens (token_hash) VALUES (OLD.token_hash);
END;

CREATE TRIGGER sign_in_links_spent AFTER DELETE ON sign_in_links
BEGIN
    INSERT OR IGNORE INTO revoked_tokens (token_hash) VALUES (OLD.token_hash);
END;

CREATE TRIGGER users_removed AFTER DELETE ON users
BEGIN
    INSERT OR IGNORE INTO removed_users (id) VALUES (OLD.id);
END;
