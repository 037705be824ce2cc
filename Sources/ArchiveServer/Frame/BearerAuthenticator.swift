import ArchiveServerStorage
import Hummingbird
import HummingbirdAuth
import HTTPTypes

/// The sync API's authenticator: the user and device that the request's
/// `Authorization: Bearer <token>` names, put in the request context.
///
/// Stricter than hummingbird-auth's `HTTPFields.bearer`: exactly one `Authorization`
/// header, at most 512 bytes, the scheme in any case, a token of printable ASCII; only the
/// header counts (a token in the query string is never read). A token that names no one
/// leaves the context without an identity (``RequireIdentityMiddleware`` answers `401`);
/// a database that cannot say is `503`, not a `401` that would sign a device out.
struct BearerAuthenticator: AuthenticatorMiddleware {
    typealias Context = ServiceRequestContext
    typealias Identity = AuthenticatedUser

    let backend: any SyncBackend

    func authenticate(request: Request, context: Context) async throws -> AuthenticatedUser? {
        guard let token = Self.token(of: request) else { return nil }
        let user: AuthenticatedUser?
        do {
            let backend = self.backend
            user = try await context.storageDeadline.run("checking a token") { try await backend.authenticate(token) }
        } catch {
            var refusal = Refusal(.serviceUnavailable, "the server cannot read its users now; try again")
            refusal.headers[.retryAfter] = "\(StorageAnswer.retryAfterSeconds)"
            throw refusal
        }
        if let user { context.record.authenticated(as: user.name) }
        return user
    }

    /// The token of the request's one `Authorization: Bearer` header, or `nil`.
    static func token(of request: Request) -> AccessToken? {
        let values = request.headers[values: .authorization]
        guard values.count == 1, let header = values.first, header.utf8.count <= 512 else { return nil }
        guard header.prefix(7).lowercased() == "bearer " else { return nil }
        let token = header.dropFirst(7)
        guard !token.isEmpty, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return AccessToken(text: String(token))
    }
}

/// The sync API's gate after ``BearerAuthenticator``: a request without an identity is
/// answered `401` with `WWW-Authenticate: Bearer`, the same whatever failed (no header, a
/// malformed one, an unknown, revoked or removed user's token).
struct RequireIdentityMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.identity != nil else { throw Refusal.unauthorized }
        return try await next(request, context)
    }
}
