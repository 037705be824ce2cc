/// What using a sign-in link did (``UserStore/redeemSignInLink(_:device:session:sessionEnd:now:)``).
public enum SignInOutcome: Sendable, Hashable {
    /// The browser is signed in as a new device of `user`, labelled `label`.
    case signedIn(user: String, label: String)
    /// No such link: never made, used already, or past its end (all answered alike).
    case refused
    /// The link was good, but `user` has had a device labelled `label` since it was made: it
    /// is used up; `devices link` makes another with a free label.
    case labelTaken(user: String, label: String)
}
