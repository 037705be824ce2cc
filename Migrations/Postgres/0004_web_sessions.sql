-- The web page (issue 60): the same tables as the embedded database's
-- (Migrations/Server/0004_web_sessions.sql, which explains each column).
CREATE TABLE sign_in_links (
    id         bigserial PRIMARY KEY,
    user_id    bigint    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    label      text      NOT NULL CHECK (length(label) BETWEEN 1 AND 64),
    token_hash bytea     NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    created_at bigint    NOT NULL,
    expires_at bigint    NOT NULL
);

CREATE INDEX sign_in_links_by_user ON sign_in_links (user_id);

ALTER TABLE device_tokens ADD COLUMN expires_at bigint;

CREATE INDEX user_favorites_newest ON user_favorites (user_id, stored_at DESC, id DESC) WHERE NOT removed;
