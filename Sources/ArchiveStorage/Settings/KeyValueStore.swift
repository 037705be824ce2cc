package import SQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Typed key-value entries in the archive database: the UserDefaults of the original app.
///
/// Each entry keeps its value and the type it was written as; reading it as
/// another type throws ``KeyValueStoreError/typeMismatch(key:stored:expected:)``
/// instead of crashing or returning the default.
public struct KeyValueStore: Sendable {
    /// The connection the store reads and writes through.
    package let queue: DatabaseQueue

    /// A store over a database already migrated with ``ArchiveMigrations``.
    package init(queue: DatabaseQueue) {
        self.queue = queue
    }

    /// The value of `key`, or its default when unset.
    public func value<Value>(for key: Key<Value>) throws -> Value {
        try storedValue(named: key.name, as: Value.self) ?? key.defaultValue
    }

    /// The value stored under `name` as a `Value`, or `nil` when unset.
    public func storedValue<Value: KeyValueStorable>(named name: String, as type: Value.Type) throws -> Value? {
        let entry = try queue.read { db in
            try db.fetchOne("SELECT type, value FROM key_value_store WHERE key = ?", name) { row in
                (type: try row.column(String.self, at: 0), value: try row.column(KeyValueStoredValue.self, at: 1))
            }
        }
        guard let entry else { return nil }
        guard entry.type == Value.keyValueType.rawValue else {
            throw KeyValueStoreError.typeMismatch(key: name, stored: entry.type, expected: Value.keyValueType)
        }
        do {
            return try Value(keyValueStoredValue: entry.value)
        } catch {
            throw KeyValueStoreError.invalidValue(key: name, type: Value.keyValueType, reason: error.message)
        }
    }

    /// Stores `value` for `key`, replacing any previous value whatever its type.
    public func set<Value>(_ value: Value, for key: Key<Value>) throws {
        let stored: KeyValueStoredValue
        do {
            stored = try value.keyValueStoredValue()
        } catch {
            throw KeyValueStoreError.encodingFailed(key: key.name, reason: "\(error)")
        }
        try queue.write { db in
            try db.execute(
                """
                INSERT INTO key_value_store (key, type, value, updated_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (key) DO UPDATE SET
                    type = excluded.type, value = excluded.value, updated_at = excluded.updated_at
                """,
                key.name, Value.keyValueType.rawValue, stored, Date().millisecondsSince1970)
        }
    }

    /// Removes the entry of `key`, so that it reads as its default again.
    /// Returns whether there was an entry.
    @discardableResult
    public func remove<Value>(_ key: Key<Value>) throws -> Bool {
        try queue.write { db in
            try db.execute("DELETE FROM key_value_store WHERE key = ?", key.name)
            return db.changes > 0
        }
    }

    /// Whether `key` has an entry (a value set, even if equal to the default).
    public func contains<Value>(_ key: Key<Value>) throws -> Bool {
        try queue.read { db in
            try db.fetchOne("SELECT 1 FROM key_value_store WHERE key = ?", key.name) { _ in true } ?? false
        }
    }

    /// The names and type tags of every entry, by name.
    public func entries() throws -> [(name: String, type: String)] {
        try queue.read { db in
            try db.fetchAll("SELECT key, type FROM key_value_store ORDER BY key") { row in
                (name: try row.column(String.self, at: 0), type: try row.column(String.self, at: 1))
            }
        }
    }
}
