-- The sync service on PostgreSQL (archive-server --postgres URL): the same tables as the
-- embedded database's (Migrations/Server/0001_sync_service.sql, which explains each
-- column), in PostgreSQL's types. The migration runner (PostgresMigrations) splits a file
-- into statements at each ';' that ends a line, and runs them in one transaction.

CREATE TABLE users (
    id         bigserial PRIMARY KEY,
    name       text      NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 64),
    token_hash bytea     UNIQUE CHECK (token_hash IS NULL OR length(token_hash) = 32),
    feed       bytea     NOT NULL UNIQUE CHECK (length(feed) = 16),
    seq        bigint    NOT NULL DEFAULT 0,
    collected  bigint    NOT NULL DEFAULT 0,
    created_at bigint    NOT NULL
);

-- Text columns compare in byte order (COLLATE "C"), as the merge rule's tie-break does.
CREATE TABLE user_favorites (
    user_id      bigint  NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    id           bigint  NOT NULL CHECK (id > 0),
    stamp        bigint  NOT NULL,
    device       bytea   NOT NULL CHECK (length(device) = 16),
    seq          bigint  NOT NULL,
    removed      boolean NOT NULL,
    photo_url    text COLLATE "C",
    category     text COLLATE "C",
    dish_name    text COLLATE "C",
    shop_name    text COLLATE "C",
    introduction text COLLATE "C",
    stored_at    bigint,
    PRIMARY KEY (user_id, id)
);

CREATE UNIQUE INDEX user_favorites_by_seq ON user_favorites (user_id, seq);

CREATE TABLE user_devices (
    user_id   bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    device    bytea  NOT NULL CHECK (length(device) = 16),
    pushed    bigint NOT NULL DEFAULT 0,
    pulled    bigint NOT NULL DEFAULT 0,
    last_seen bigint NOT NULL,
    PRIMARY KEY (user_id, device)
);
