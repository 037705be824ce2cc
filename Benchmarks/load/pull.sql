-- pgbench's pull (Benchmarks/load/run.sh): the statements PostgresSyncStorage runs for one pull of
-- at most 100 changes, in its order: the token check, then one transaction (the user's row locked,
-- and feed checked, the token's device checked (DeviceBinding), the page read by the feed's index, the cursor the device asks from recorded as
-- applied, the tombstones every device has applied dropped, `pushed` read back). Keep in step with
-- Sources/ArchiveServerPostgres/PostgresSyncStorage.swift (pull, authenticate).
--
-- The same workload as load.lua's pulls: a random user, one of its three devices, the changes
-- after the feed's end minus 20. The server drops tombstones only when the page reaches the end
-- of the feed; pgbench always runs that statement (here it finds none: the load removes nothing).
\set u random(1, :users)
\set d random(1, 3)
SELECT u.id, u.name, encode(u.feed, 'hex'), encode(t.token_hash, 'hex'), t.id, t.label
FROM device_tokens t JOIN users u ON u.id = t.user_id
WHERE t.token_hash = (SELECT token_hash FROM device_tokens WHERE user_id = :u AND label = 'd' || :d);
BEGIN;
SELECT seq, collected FROM users WHERE id = :u AND feed = (SELECT feed FROM users WHERE id = :u) FOR UPDATE \gset
SELECT encode(device, 'hex'), shared,
    EXISTS (SELECT 1 FROM device_tokens o WHERE o.user_id = t.user_id
            AND o.device = decode(lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0'), 'hex') AND o.id <> t.id)
FROM device_tokens t WHERE t.id = (SELECT id FROM device_tokens WHERE user_id = :u AND label = 'd' || :d) AND t.user_id = :u;
SELECT id, stamp, encode(device, 'hex'), removed, photo_url, category, dish_name, shop_name, introduction, stored_at, seq FROM user_favorites
WHERE user_id = :u AND seq > GREATEST(:seq - 20, 0) ORDER BY seq LIMIT 101;
INSERT INTO user_devices (user_id, device, pushed, pulled, last_seen, token)
VALUES (:u, decode(lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0'), 'hex'), 0, GREATEST(:seq - 20, 0), 1790000000000,
        (SELECT id FROM device_tokens WHERE user_id = :u AND label = 'd' || :d))
ON CONFLICT (user_id, device) DO UPDATE
SET pulled = GREATEST(user_devices.pulled, excluded.pulled), last_seen = excluded.last_seen, token = excluded.token;
WITH everyone AS (SELECT min(pulled) AS seq FROM user_devices WHERE user_id = :u),
dropped AS (
    DELETE FROM user_favorites WHERE user_id = :u AND removed AND seq <= (SELECT seq FROM everyone)
    RETURNING 1)
UPDATE users SET collected = GREATEST(collected, (SELECT seq FROM everyone))
WHERE id = :u AND EXISTS (SELECT 1 FROM dropped);
SELECT pushed FROM user_devices WHERE user_id = :u AND device = decode(lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0'), 'hex');
COMMIT;
