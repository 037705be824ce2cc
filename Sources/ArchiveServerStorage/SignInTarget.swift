/// Whom a sign-in link signs a browser in as, shown before it is used
/// (``SyncBackend/signInTarget(of:)``): the user and the new device's label.
public struct SignInTarget: Sendable, Hashable {
    /// The user's name.
    public let user: String
    /// The label of the device the link makes.
    public let label: String

    /// The target `user`, `label`.
    public init(user: String, label: String) {
        self.user = user
        self.label = label
    }
}
