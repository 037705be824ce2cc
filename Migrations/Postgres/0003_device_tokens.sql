-- A token per device (issue 59): the same tables as the embedded database's
-- (Migrations/Server/0003_device_tokens.sql, which explains each column).
CREATE TABLE device_tokens (
    id         bigserial PRIMARY KEY,
    user_id    bigint    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    label      text      NOT NULL CHECK (length(label) BETWEEN 1 AND 64),
    token_hash bytea     NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    device     bytea     CHECK (device IS NULL OR length(device) = 16),
    shared     boolean   NOT NULL DEFAULT false,
    created_at bigint    NOT NULL,
    UNIQUE (user_id, label)
);

CREATE UNIQUE INDEX device_tokens_by_device ON device_tokens (user_id, device) WHERE device IS NOT NULL;

INSERT INTO device_tokens (user_id, label, token_hash, shared, created_at)
SELECT id, 'shared', token_hash, true, created_at FROM users WHERE token_hash IS NOT NULL;

ALTER TABLE users DROP COLUMN token_hash;

ALTER TABLE user_devices ADD COLUMN token bigint REFERENCES device_tokens (id) ON DELETE CASCADE;

UPDATE user_devices SET token = (SELECT t.id FROM device_tokens AS t WHERE t.user_id = user_devices.user_id);

DELETE FROM user_devices WHERE token IS NULL;

CREATE INDEX user_devices_by_token ON user_devices (token);
