/// The answer to a push: what the merge rule did with each change.
public struct SyncPushResponse: Codable, Sendable, Hashable {
    /// Changes that took effect.
    public var applied: Int
    /// Changes that lost to a later state the server already held.
    public var superseded: Int
    /// Changes the server already held (a retried push).
    public var alreadyHeld: Int
    /// How far the server has taken this device's feed: push from after it next time.
    public var pushed: Int64

    /// An answer with these counts.
    public init(applied: Int, superseded: Int, alreadyHeld: Int, pushed: Int64) {
        self.applied = applied
        self.superseded = superseded
        self.alreadyHeld = alreadyHeld
        self.pushed = pushed
    }

    private enum CodingKeys: String, CodingKey {
        case applied, superseded, alreadyHeld, pushed
    }

    /// Decodes an answer, saying which number is out of range rather than "not valid JSON".
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        applied = try container.decodeWhole(Int.self, forKey: .applied)
        superseded = try container.decodeWhole(Int.self, forKey: .superseded)
        alreadyHeld = try container.decodeWhole(Int.self, forKey: .alreadyHeld)
        pushed = try container.decodeWhole(Int64.self, forKey: .pushed)
    }
}
