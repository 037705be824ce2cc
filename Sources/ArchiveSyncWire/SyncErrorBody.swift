/// Every refusal's body: `{"error": "…"}` (a 401's says only "unauthorized").
public struct SyncErrorBody: Codable, Sendable, Hashable {
    /// What went wrong and what to do.
    public var error: String

    /// A body saying `error`.
    public init(error: String) {
        self.error = error
    }
}
