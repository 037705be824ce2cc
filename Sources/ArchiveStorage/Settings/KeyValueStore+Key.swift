extension KeyValueStore {
    /// A typed key of the ``KeyValueStore``, with the value it reads as when unset.
    ///
    /// `KeyValueStore.Key<Bool>("onboardingStatus", default: true)` is the original app's
    /// UserDefaults key, made typed.
    public struct Key<Value: KeyValueStorable>: Sendable, Hashable {
        /// The key's name in the store.
        public let name: String
        /// The value read when the entry is unset or removed.
        public let defaultValue: Value

        /// Creates a key named `name` whose unset value is `defaultValue`.
        public init(_ name: String, default defaultValue: Value) {
            self.name = name
            self.defaultValue = defaultValue
        }

        /// Keys are equal when their names are: one name is one entry.
        public static func == (lhs: Key, rhs: Key) -> Bool { lhs.name == rhs.name }

        /// Hashes the name.
        public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    }
}
