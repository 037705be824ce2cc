-- pgbench's pull (Benchmarks/load/run.sh): the statements PostgresSyncStorage runs for one pull of
-- at most 100 changes by a device whose own token is bound to it, in its order: the token check,
-- then the one statement (read from one snapshot, without the user's lock: the user's feed end
-- and tombstone horizon, the token's binding and the cursor checked, the page read by the feed's
-- index, the cursor the device asks from recorded as applied, `pushed` returned, and whether the
-- user has tombstones every device has applied). Keep in step with
-- Sources/ArchiveServerPostgres/PostgresSyncStorage+OneStatement.swift (pullInOneStatement) and
-- PostgresSyncStorage.swift (authenticate).
--
-- The same workload as load.lua's pulls: a random user, one of its three devices, the changes
-- after the feed's end minus 20 (`asked`: the server binds the cursor the device sends; pgbench
-- reads it in the statement, one more probe of an index, against pgbench). The server drops
-- tombstones in a transaction of its own when that last column says some are applied by every
-- device: the load removes nothing, so neither does pgbench.
\set u random(1, :users)
\set d random(1, 3)
SELECT u.id, u.name, encode(u.feed, 'hex'), encode(t.token_hash, 'hex'), t.id, t.label, encode(t.device, 'hex'), t.expires_at IS NOT NULL
FROM device_tokens t JOIN users u ON u.id = t.user_id
WHERE t.token_hash = (SELECT token_hash FROM device_tokens WHERE user_id = :u AND label = 'd' || :d) AND (t.expires_at IS NULL OR t.expires_at > 1790000000000);
WITH asked AS MATERIALIZED (
    SELECT GREATEST(seq - 20, 0) AS cursor FROM users WHERE id = :u
), facts AS MATERIALIZED (
    SELECT u.seq, u.collected, t.device AS bound, t.shared, request.device,
        EXISTS (SELECT 1 FROM device_tokens o WHERE o.user_id = t.user_id AND o.device = request.device AND o.id <> t.id) AS taken
    FROM users u, device_tokens t, (SELECT decode(lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0'), 'hex') AS device) AS request
    WHERE u.id = :u AND u.feed = (SELECT feed FROM users WHERE id = :u) AND t.id = (SELECT id FROM device_tokens WHERE user_id = :u AND label = 'd' || :d) AND t.user_id = u.id
), gate AS MATERIALIZED (
    SELECT seq, admitted, reset, CASE WHEN reset THEN 0 ELSE (SELECT cursor FROM asked) END AS start FROM (
        SELECT seq, coalesce(NOT facts.shared AND facts.bound = facts.device AND NOT facts.taken, false) AND ((SELECT cursor FROM asked) <= 0 OR (SELECT cursor FROM asked) >= collected) AS admitted,
            (SELECT cursor FROM asked) > seq AS reset
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
