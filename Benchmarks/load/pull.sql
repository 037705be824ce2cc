-- pgbench's pull (Benchmarks/load/run.sh): the statements PostgresSyncStorage runs for one pull of
-- at most 100 changes by a device whose own token is bound to it, in its order: the token check,
-- then the one statement (read from one snapshot, without the user's lock: the user's feed end
-- and tombstone horizon, the token's binding and the cursor checked, the page read by the feed's
-- index, the cursor the device asks from recorded as applied, `pushed` returned, and whether the
-- user has tombstones every device has applied). They are the backend's
-- statements as built (PostgresSyncStorage.authenticateStatement and pullStatement), each bind
-- replaced by the pgbench expression listed below: LoadStatementTests fails on any other difference.
--
-- The same workload as load.lua's pulls: a random user, one of its three devices, the changes
-- after the feed's end minus 20 (the server binds the cursor the device sends; pgbench reads it
-- from the user's row where the statement uses it, four more probes of an index, against
-- pgbench, as are the token's hash, its ID and the user's feed, read by user and label, where the
-- server binds what its token check found). The server drops
-- tombstones in a transaction of its own when that last column says some are applied by every
-- device: the load removes nothing, so neither does pgbench.
--
-- binds of the token check (PostgresSyncStorage.authenticateStatement):
--   $1 = (SELECT encode(token_hash, 'hex') FROM device_tokens WHERE user_id = :u AND label = 'd' || :d)
--   $2 = 1790000000000
-- binds of the pull (PostgresSyncStorage.pullStatement):
--   $1 = lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0')
--   $2 = :u
--   $3 = (SELECT encode(feed, 'hex') FROM users WHERE id = :u)
--   $4 = (SELECT id FROM device_tokens WHERE user_id = :u AND label = 'd' || :d)
--   $5 = (SELECT GREATEST(seq - 20, 0) FROM users WHERE id = :u)
--   $6 = (SELECT GREATEST(seq - 20, 0) FROM users WHERE id = :u)
--   $7 = (SELECT GREATEST(seq - 20, 0) FROM users WHERE id = :u)
--   $8 = (SELECT GREATEST(seq - 20, 0) FROM users WHERE id = :u)
--   $9 = :u
--   $10 = 101
--   $11 = :u
--   $12 = lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0')
--   $13 = 1790000000000
--   $14 = (SELECT id FROM device_tokens WHERE user_id = :u AND label = 'd' || :d)
--   $15 = true
--   $16 = :u
--   $17 = lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0')
--   $18 = true
--   $19 = 100
--   $20 = :u
--   $21 = :u
--   $22 = lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0')
\set u random(1, :users)
\set d random(1, 3)
SELECT u.id, u.name, encode(u.feed, 'hex'), encode(t.token_hash, 'hex'), t.id, t.label, encode(t.device, 'hex'), t.expires_at IS NOT NULL
FROM device_tokens t JOIN users u ON u.id = t.user_id
WHERE t.token_hash = decode((SELECT encode(token_hash, 'hex') FROM device_tokens WHERE user_id = :u AND label = 'd' || :d), 'hex') AND (t.expires_at IS NULL OR t.expires_at > 1790000000000);
WITH facts AS MATERIALIZED (
    SELECT u.seq, u.collected, t.device AS bound, t.shared, request.device,
EXISTS (SELECT 1 FROM device_tokens o WHERE o.user_id = t.user_id AND o.device = request.device AND o.id <> t.id) AS taken
    FROM users u, device_tokens t, (SELECT decode(lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0'), 'hex') AS device) AS request
    WHERE u.id = :u AND u.feed = decode((SELECT encode(feed, 'hex') FROM users WHERE id = :u), 'hex') AND t.id = (SELECT id FROM device_tokens WHERE user_id = :u AND label = 'd' || :d) AND t.user_id = u.id
), gate AS MATERIALIZED (
    SELECT seq, admitted, reset, CASE WHEN reset THEN 0 ELSE (SELECT GREATEST(seq - 20, 0) FROM users WHERE id = :u) END AS start FROM (
        SELECT seq, coalesce(NOT facts.shared AND facts.bound = facts.device AND NOT facts.taken, false) AND ((SELECT GREATEST(seq - 20, 0) FROM users WHERE id = :u) <= 0 OR (SELECT GREATEST(seq - 20, 0) FROM users WHERE id = :u) >= collected) AS admitted,
            (SELECT GREATEST(seq - 20, 0) FROM users WHERE id = :u) > seq AS reset
        FROM facts) AS decided
), page AS MATERIALIZED (
    SELECT id, stamp, encode(device, 'hex'), removed, photo_url, category, dish_name, shop_name, introduction, stored_at, seq FROM user_favorites
    WHERE user_id = :u AND seq > (SELECT start FROM gate) AND (SELECT admitted FROM gate)
    ORDER BY seq LIMIT 101
), recorded AS (
    INSERT INTO user_devices (user_id, device, pushed, pulled, last_seen, token)
    SELECT :u, decode(lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0'), 'hex'), 0, start, 1790000000000, (SELECT id FROM device_tokens WHERE user_id = :u AND label = 'd' || :d) FROM gate WHERE admitted AND true
    ON CONFLICT (user_id, device) DO UPDATE
SET pulled = GREATEST(user_devices.pulled, excluded.pulled), last_seen = excluded.last_seen, token = excluded.token
RETURNING pushed, pulled
)
SELECT gate.admitted, gate.seq, gate.reset,
    coalesce((SELECT pushed FROM recorded),
             (SELECT pushed FROM user_devices WHERE user_id = :u AND device = decode(lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0'), 'hex')), 0),
    CASE WHEN true AND (SELECT count(*) FROM page) <= 100 THEN EXISTS (
        SELECT 1 FROM user_favorites WHERE user_id = :u AND removed AND seq <= (
            SELECT min(pulled) FROM (
                SELECT pulled FROM user_devices WHERE user_id = :u AND device <> decode(lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0'), 'hex')
                UNION ALL SELECT pulled FROM recorded) AS devices))
    ELSE false END,
    page.*
FROM (VALUES (1)) AS one LEFT JOIN gate ON true LEFT JOIN page ON true ORDER BY page.seq;
