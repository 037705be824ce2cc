-- Typed key-value entries (the UserDefaults of the original app: the onboarding flag and friends).
-- type names the Swift type the value was written as: bool, int, double, string, date, data or json.
CREATE TABLE key_value_store (
    key        TEXT    PRIMARY KEY NOT NULL,
    type       TEXT    NOT NULL,
    value              NOT NULL, -- no declared type (BLOB affinity): SQLite keeps each value exactly as written
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;
