-- Sync: every favorite's state, stored or removed, carries the stamp of the change that
-- set it, so that two databases of one user merge with one rule (docs/SYNC.md): for each
-- favorite ID, the state with the greatest (stamp, device) wins.
--
-- stamp:  a hybrid logical clock, Unix milliseconds * 65536 + a counter (HybridTimestamp).
-- device: the device that made the change, as a small number into sync_devices (a UUID
--         costs 17 bytes a row; the number 1 or 2).
-- seq:    this database's own order of the changes it made or received: the change
--         feed ("what changed since seq N") reads it through its index. A row another
--         program inserts without one (seq 0, stamp 0) is in no feed: such a program
--         should go through the engine.

-- The devices this database has heard of; the row whose UUID is the `deviceID` setting is
-- this database's own.
CREATE TABLE sync_devices (
    ref    INTEGER PRIMARY KEY NOT NULL,
    device BLOB    NOT NULL UNIQUE CHECK (length(device) = 16)
);
INSERT INTO sync_devices (ref, device) VALUES (1, randomblob(16));
INSERT INTO key_value_store (key, type, value, updated_at)
    SELECT 'deviceID', 'string', lower(hex(device)), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
    FROM sync_devices WHERE ref = 1;

ALTER TABLE archive_objects ADD COLUMN stamp  INTEGER NOT NULL DEFAULT 0;
ALTER TABLE archive_objects ADD COLUMN device INTEGER NOT NULL DEFAULT 1;
ALTER TABLE archive_objects ADD COLUMN seq    INTEGER NOT NULL DEFAULT 0;

-- A removed favorite: its ID, and the stamp of the removal. Never shown, counted or
-- exported; it only answers "was this removed after that heart?".
CREATE TABLE archive_tombstones (
    id     INTEGER PRIMARY KEY NOT NULL CHECK (id > 0),
    stamp  INTEGER NOT NULL,
    device INTEGER NOT NULL,
    seq    INTEGER NOT NULL
);

-- The favorites already stored were stamped by this device when they were stored, in the
-- order they were stored.
UPDATE archive_objects SET stamp = max(0, min(stored_at, 70368744177663)) * 65536, seq = ordered.n
FROM (SELECT id, row_number() OVER (ORDER BY stored_at, id) AS n FROM archive_objects) AS ordered
WHERE archive_objects.id = ordered.id;

CREATE INDEX archive_objects_by_seq ON archive_objects (seq);
CREATE INDEX archive_tombstones_by_seq ON archive_tombstones (seq);

-- The clock (the greatest stamp this database made or received) and the last seq it gave.
CREATE TABLE sync_state (
    one   INTEGER PRIMARY KEY NOT NULL CHECK (one = 1),
    clock INTEGER NOT NULL,
    seq   INTEGER NOT NULL
);
INSERT INTO sync_state (one, clock, seq)
    SELECT 1, coalesce(max(stamp), 0), count(*) FROM archive_objects;

-- How far this database has read each other database's change feed: their device, and
-- the last seq of theirs it applied.
CREATE TABLE sync_peers (
    device   BLOB    PRIMARY KEY NOT NULL CHECK (length(device) = 16),
    received INTEGER NOT NULL
) WITHOUT ROWID;
