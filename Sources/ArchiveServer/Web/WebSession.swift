import ArchiveServerStorage
import Crypto
import Hummingbird
import ArchiveSyncModel

/// The web page's session: a cookie holding the device token a sign-in link made, and the
/// CSRF token every form and script request of that session must carry.
enum WebSession {
    /// The cookie's name.
    static let cookieName = "fa_session"
    /// How long a browser stays signed in: 30 days, in seconds (the cookie's `Max-Age`; the
    /// token itself stops working then too).
    static let lifetimeSeconds: Int64 = 30 * 86_400

    /// The session token a request's cookie holds, or `nil` (none, or not a token's shape).
    static func token(of request: Request) -> AccessToken? {
        guard let value = request.cookies[cookieName]?.value, value.utf8.count <= 128,
              value.hasPrefix(AccessToken.prefix),
              value.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F })
        else { return nil }
        return AccessToken(text: value)
    }

    /// The session's `Set-Cookie` headers, `Secure` when browsers reach the page over HTTPS
    /// (the server's own TLS, or `--public-url https://…` behind a proxy that terminates it):
    /// the cookie is a device token, never to be sent in the clear.
    struct Cookies: Sendable {
        /// Whether the cookie is `Secure`.
        let secure: Bool

        /// `Set-Cookie` for `token`: `HttpOnly` (no script reads it), `SameSite=Strict` (no
        /// other site's page sends it), ending with the session.
        func set(_ token: AccessToken) -> String {
            "\(cookieName)=\(token.text); Path=/; Max-Age=\(lifetimeSeconds); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
        }

        /// `Set-Cookie` that removes the session's cookie.
        var clear: String {
            "\(cookieName)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
        }
    }

    /// The CSRF token of the session `token`: derived from it (SHA-256 of a fixed prefix and
    /// the token), so it needs no storage, and a page of another site, which can read
    /// neither the cookie nor this page, cannot know it.
    static func csrfToken(of token: AccessToken) -> String {
        Hex.encode(Array(SHA256.hash(data: Array(("favorite-archive csrf\n" + token.text).utf8))))
    }

    /// Whether `sent` is the CSRF token of `token` (compared in constant time).
    static func checkCSRF(_ sent: String?, for token: AccessToken) -> Bool {
        guard let sent else { return false }
        return AccessToken.constantTimeEqual(Array(sent.utf8), Array(csrfToken(of: token).utf8))
    }
}
