import ArchiveServerStorage
import Hummingbird
import HummingbirdAuth

/// The page's authenticator: the browser's session cookie (``WebSession``), put in the
/// request context when it names a browser's session (made by a sign-in link, its device
/// bound from the start). A CLI device's token pasted into a cookie signs nothing in: the
/// page's hearts would otherwise be stamped with that device's ID, beside its own changes.
/// A page that needs a session refuses one without (``PageRoutes``); a database that
/// cannot say is a page saying so (``PageErrorMiddleware``).
struct SessionAuthenticator: AuthenticatorMiddleware {
    typealias Context = ServiceRequestContext
    typealias Identity = AuthenticatedUser

    let backend: any SyncBackend

    func authenticate(request: Request, context: Context) async throws -> AuthenticatedUser? {
        guard let token = WebSession.token(of: request) else { return nil }
        let backend = self.backend
        let user = try await context.storageDeadline.run("checking a session") { try await backend.authenticate(token) }
        guard let user, user.isBrowserSession, user.boundDevice != nil else { return nil }
        context.record.authenticated(as: user.name)
        return user
    }
}
