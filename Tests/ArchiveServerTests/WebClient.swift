import ArchiveStorage
import Foundation
import TestSupport

/// A browser signed in to a ``ServiceProcess``'s web page, as plain HTTP requests: the
/// session cookie a sign-in link gave it, and the CSRF token its pages carry.
struct WebClient {
    let server: ServiceProcess
    /// `fa_session=…`.
    let cookie: String
    /// The CSRF token the signed-in page shows.
    let csrf: String

    /// Makes a sign-in link for a new device `label` of `user` (`devices link`).
    static func link(_ server: ServiceProcess, user: String, label: String) throws -> String {
        let result = try server.admin(["devices", "link", user, label, "--public-url", server.url])
        guard result.status == 0 else { throw ServiceFailed(stderr: result.stderr) }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The secret of a sign-in link (its `link=` value).
    static func secret(of link: String) -> String {
        String(link.split(separator: "=").last ?? "")
    }

    /// POSTs `link`'s secret to `/signin` and returns the answer.
    static func signIn(_ server: ServiceProcess, secret: String) throws -> RawHTTPConnection.Response {
        try server.call("POST", "/signin", body: Array("link=\(secret)".utf8))
    }

    /// Signs a new device `label` of `user` in by a fresh link.
    static func signedIn(_ server: ServiceProcess, user: String, label: String) throws -> WebClient {
        let answer = try signIn(server, secret: secret(of: try link(server, user: user, label: label)))
        guard answer.status == 303, let setCookie = answer.header("Set-Cookie"), let cookie = setCookie.split(separator: ";").first else {
            throw ServiceFailed(stderr: "sign-in answered \(answer.status): \(answer.text)")
        }
        let page = try server.call("GET", "/", headers: ["Cookie: \(cookie)"])
        guard let csrf = Self.csrf(in: page.text) else { throw ServiceFailed(stderr: "no CSRF token on the page: \(page.text.prefix(400))") }
        return WebClient(server: server, cookie: String(cookie), csrf: csrf)
    }

    /// The `data-csrf` value a page carries.
    static func csrf(in html: String) -> String? {
        guard let start = html.range(of: "data-csrf=\"") else { return nil }
        return String(html[start.upperBound...].prefix { $0 != "\"" })
    }

    /// GETs `target` with the session's cookie.
    func get(_ target: String, headers: [String] = []) throws -> RawHTTPConnection.Response {
        try server.call("GET", target, headers: ["Cookie: \(cookie)"] + headers)
    }

    /// POSTs the form `fields` (already encoded) to `target` with the session's cookie.
    func post(_ target: String, _ fields: String, headers: [String] = []) throws -> RawHTTPConnection.Response {
        try server.call("POST", target, headers: ["Cookie: \(cookie)"] + headers, body: Array(fields.utf8))
    }

    /// Hearts (`keep`) or un-hearts dish `id`, as the page's script does, and returns
    /// whether the dish is stored after the merge.
    func heart(_ id: Int, keep: Bool) throws -> Bool {
        let answer = try post("/web/heart", "csrf=\(csrf)&id=\(id)&keep=\(keep ? 1 : 0)", headers: ["Accept: application/json"])
        guard answer.status == 200, let object = try answer.json() as? [String: Any], let stored = object["stored"] as? Bool else {
            throw ServiceFailed(stderr: "heart answered \(answer.status): \(answer.text)")
        }
        return stored
    }

    /// Sends a heart of dish `id` as the page's script does with one it kept: made at `made`
    /// and sent at `sent` (Unix milliseconds of the browser's clock), and returns the answer.
    func heart(_ id: Int, keep: Bool, made: Int64, sent: Int64) throws -> RawHTTPConnection.Response {
        try post("/web/heart", "csrf=\(csrf)&id=\(id)&keep=\(keep ? 1 : 0)&made=\(made)&sent=\(sent)", headers: ["Accept: application/json"])
    }

    /// The dish IDs a page shows, and which of them are hearted.
    static func cards(in html: String) -> [(id: Int, stored: Bool)] {
        html.components(separatedBy: "<li class=\"card\" data-id=\"").dropFirst().compactMap { part in
            guard let id = Int(part.prefix { $0.isNumber }) else { return nil }
            let card = part.components(separatedBy: "</li>").first ?? ""
            return (id, card.contains("aria-pressed=\"true\""))
        }
    }
}
