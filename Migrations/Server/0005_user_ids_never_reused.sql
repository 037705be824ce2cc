-- A user's row ID is never given again (issue 72): a user's ID keys the service's open
-- event streams and scopes every request checked against its token, and SQLite's
-- `INTEGER PRIMARY KEY` gives the highest ID again once its user is removed (alice
-- removed, mallory added: the same ID, alice's open stream hearing mallory's pushes).
-- PostgreSQL's `bigserial` never gives one twice; here `id_high_water` remembers the
-- highest ID ever given, users are added at the next one (UserStore.add), and an insert
-- at or below it fails instead of reusing an ID.
CREATE TABLE id_high_water (
    name TEXT    PRIMARY KEY NOT NULL,
    high INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO id_high_water (name, high) SELECT 'users', coalesce(max(id), 0) FROM users;

CREATE TRIGGER users_id_never_reused AFTER INSERT ON users
BEGIN
    SELECT RAISE(ABORT, 'a user ID is never reused: add users at id_high_water''s next ID')
    WHERE NEW.id <= (SELECT high FROM id_high_water WHERE name = 'users');
    UPDATE id_high_water SET high = NEW.id WHERE name = 'users';
END;
