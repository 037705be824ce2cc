/// The identity of a long-running effect, used to cancel it or to replace it.
public struct EffectID: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The name of the effect, such as "archive.search".
    public let name: String

    /// Creates an ID from its name.
    public init(_ name: String) {
        self.name = name
    }

    /// Creates an ID from a string literal.
    public init(stringLiteral name: String) {
        self.name = name
    }

    /// The name.
    public var description: String { name }
}
