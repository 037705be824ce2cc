-- pgbench's push (Benchmarks/load/run.sh): the statements PostgresSyncStorage runs for one push of
-- five changes by a device whose own token is bound to it, in its order: the token check, then the
-- one statement (the user's row locked, the token's binding and the push's `seen` checked, the
-- batch merged by the rule's INSERT ... ON CONFLICT ... DO UPDATE ... WHERE, the feed's end moved,
-- the device recorded, `pushed` returned). They are the backend's
-- statements as built (PostgresSyncStorage.authenticateStatement and pushStatement), each bind
-- replaced by the pgbench expression listed below: LoadStatementTests fails on any other difference.
--
-- The same workload as load.lua's pushes: a random user, one of its three devices (each bound to
-- its token by seed.py, as a device's first sync does), five distinct favorites (one in each fifth
-- of 1..1000), a stamp newer than any before (:stamp grows by 65536, a millisecond, at each push of
-- this client; pgbench keeps a client's variables from one transaction to the next). Where the
-- server binds what its token check found (the token's hash, its ID, the user's feed), pgbench
-- reads it by user and label (a few more probes of an index, against pgbench); the batch's
-- arrays are built from pgbench's variables, where the server binds each as one array.
--
-- binds of the token check (PostgresSyncStorage.authenticateStatement):
--   $1 = (SELECT encode(token_hash, 'hex') FROM device_tokens WHERE user_id = :u AND label = 'd' || :d)
--   $2 = 1790000000000
-- binds of the push (PostgresSyncStorage.pushStatement):
--   $1 = :u
--   $2 = (SELECT encode(feed, 'hex') FROM users WHERE id = :u)
--   $3 = lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0')
--   $4 = (SELECT id FROM device_tokens WHERE user_id = :u AND label = 'd' || :d)
--   $5 = :u
--   $6 = 0
--   $7 = :u
--   $8 = ARRAY[:i1, :i2, :i3, :i4, :i5]
--   $9 = ARRAY[:stamp, :stamp, :stamp, :stamp, :stamp]
--   $10 = ARRAY[lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0'), lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0'), lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0'), lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0'), lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0')]
--   $11 = ARRAY[false, false, false, false, false]
--   $12 = ARRAY[:photo, :photo, :photo, :photo, :photo]
--   $13 = ARRAY[:category, :category, :category, :category, :category]
--   $14 = ARRAY[:dish, :dish, :dish, :dish, :dish]
--   $15 = ARRAY[:shop, :shop, :shop, :shop, :shop]
--   $16 = ARRAY[:intro, :intro, :intro, :intro, :intro]
--   $17 = ARRAY[1790000000000, 1790000000000, 1790000000000, 1790000000000, 1790000000000]
--   $18 = 5
--   $19 = :u
--   $20 = true
--   $21 = :u
--   $22 = lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0')
--   $23 = :stamp
--   $24 = 1790000000000
--   $25 = (SELECT id FROM device_tokens WHERE user_id = :u AND label = 'd' || :d)
\set u random(1, :users)
\set d random(1, 3)
\set i1 random(1, 200)
\set i2 200 + random(1, 200)
\set i3 400 + random(1, 200)
\set i4 600 + random(1, 200)
\set i5 800 + random(1, 200)
\set stamp :stamp + 65536
SELECT u.id, u.name, encode(u.feed, 'hex'), encode(t.token_hash, 'hex'), t.id, t.label, encode(t.device, 'hex'), t.expires_at IS NOT NULL
FROM device_tokens t JOIN users u ON u.id = t.user_id
WHERE t.token_hash = decode((SELECT encode(token_hash, 'hex') FROM device_tokens WHERE user_id = :u AND label = 'd' || :d), 'hex') AND (t.expires_at IS NULL OR t.expires_at > 1790000000000);
WITH held AS MATERIALIZED (
    SELECT seq, collected FROM users WHERE id = :u AND feed = decode((SELECT encode(feed, 'hex') FROM users WHERE id = :u), 'hex') FOR UPDATE
), facts AS MATERIALIZED (
    SELECT held.seq, held.collected, t.device AS bound, t.shared, request.device,
EXISTS (SELECT 1 FROM device_tokens o WHERE o.user_id = t.user_id AND o.device = request.device AND o.id <> t.id) AS taken
    FROM held, device_tokens t, (SELECT decode(lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0'), 'hex') AS device) AS request
    WHERE t.id = (SELECT id FROM device_tokens WHERE user_id = :u AND label = 'd' || :d) AND t.user_id = :u
), gate AS MATERIALIZED (
    SELECT seq, coalesce(NOT facts.shared AND facts.bound = facts.device AND NOT facts.taken, false) AND 0 >= collected AS admitted FROM facts
), merged AS (
    INSERT INTO user_favorites AS f (user_id, id, stamp, device, seq, removed, photo_url, category, dish_name, shop_name, introduction, stored_at)
    SELECT :u, c.id, c.stamp, decode(c.device, 'hex'), (SELECT seq FROM gate) + c.n, c.removed, CASE WHEN c.removed THEN NULL ELSE c.photo_url END, CASE WHEN c.removed THEN NULL ELSE c.category END,
CASE WHEN c.removed THEN NULL ELSE c.dish_name END, CASE WHEN c.removed THEN NULL ELSE c.shop_name END,
CASE WHEN c.removed THEN NULL ELSE c.introduction END, CASE WHEN c.removed THEN NULL ELSE c.stored_at END
    FROM unnest(ARRAY[:i1, :i2, :i3, :i4, :i5]::bigint[], ARRAY[:stamp, :stamp, :stamp, :stamp, :stamp]::bigint[], ARRAY[lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0'), lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0'), lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0'), lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0'), lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0')]::text[], ARRAY[false, false, false, false, false]::boolean[],
                ARRAY[:photo, :photo, :photo, :photo, :photo]::text[], ARRAY[:category, :category, :category, :category, :category]::text[], ARRAY[:dish, :dish, :dish, :dish, :dish]::text[], ARRAY[:shop, :shop, :shop, :shop, :shop]::text[],
                ARRAY[:intro, :intro, :intro, :intro, :intro]::text[], ARRAY[1790000000000, 1790000000000, 1790000000000, 1790000000000, 1790000000000]::bigint[]) WITH ORDINALITY AS c (id, stamp, device, removed, photo_url, category, dish_name, shop_name, introduction, stored_at, n)
    WHERE (SELECT admitted FROM gate)
    ON CONFLICT (user_id, id) DO UPDATE SET
    stamp = excluded.stamp, device = excluded.device, seq = excluded.seq, removed = excluded.removed,
    photo_url = excluded.photo_url, category = excluded.category, dish_name = excluded.dish_name,
    shop_name = excluded.shop_name, introduction = excluded.introduction, stored_at = excluded.stored_at
WHERE (excluded.stamp, excluded.device) > (f.stamp, f.device)
   OR ((excluded.stamp, excluded.device) = (f.stamp, f.device) AND NOT excluded.removed
       AND (f.removed OR (excluded.photo_url, excluded.category, excluded.dish_name, excluded.shop_name, excluded.introduction, excluded.stored_at)
                       > (f.photo_url, f.category, f.dish_name, f.shop_name, f.introduction, f.stored_at)))
    RETURNING id
), moved AS (
    UPDATE users SET seq = (SELECT seq FROM gate) + 5
    WHERE id = :u AND true AND (SELECT admitted FROM gate)
), recorded AS (
    INSERT INTO user_devices (user_id, device, pushed, pulled, last_seen, token)
    SELECT :u, decode(lpad(to_hex(:u::bigint), 16, '0') || lpad(to_hex(:d::bigint), 16, '0'), 'hex'), :stamp, 0, 1790000000000, (SELECT id FROM device_tokens WHERE user_id = :u AND label = 'd' || :d) WHERE (SELECT admitted FROM gate)
    ON CONFLICT (user_id, device) DO UPDATE
SET pushed = GREATEST(user_devices.pushed, excluded.pushed), last_seen = excluded.last_seen, token = excluded.token
RETURNING pushed
)
SELECT coalesce((SELECT admitted FROM gate), false), (SELECT pushed FROM recorded), ARRAY(SELECT id FROM merged);
