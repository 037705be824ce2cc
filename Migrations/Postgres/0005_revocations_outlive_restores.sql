-- What was revoked stays revoked when an older copy is put back (issue 73): the same
-- tables and triggers as the embedded database's
-- (Migrations/Server/0006_revocations_outlive_restores.sql, which explains them).
CREATE TABLE revoked_tokens (
    token_hash bytea PRIMARY KEY CHECK (length(token_hash) = 32)
);

CREATE TABLE removed_users (
    id bigint PRIMARY KEY
);

CREATE FUNCTION keep_revoked_token() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO revoked_tokens (token_hash) VALUES (OLD.token_hash) ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;

CREATE FUNCTION keep_removed_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO removed_users (id) VALUES (OLD.id) ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;

CREATE TRIGGER device_tokens_revoked AFTER DELETE ON device_tokens FOR EACH ROW EXECUTE FUNCTION keep_revoked_token();

CREATE TRIGGER sign_in_links_spent AFTER DELETE ON sign_in_links FOR EACH ROW EXECUTE FUNCTION keep_revoked_token();

CREATE TRIGGER users_removed AFTER DELETE ON users FOR EACH ROW EXECUTE FUNCTION keep_removed_user();
