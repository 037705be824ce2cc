import HTTPTypes

/// A page request the web page refuses: shown as a page saying `title` and `text`, with
/// `status`, and a link `back` when one helps.
struct WebRefusal: Error {
    let status: HTTPResponse.Status
    let title: String
    let text: String
    var back: String?
    /// Whether the answer removes the session's cookie (a session that ended).
    var clearsSession = false
    /// Whether the connection closes after the answer (a body left unread).
    var close = false
    /// The methods served, for a `405`'s `Allow`.
    var allow: String?

    init(
        _ status: HTTPResponse.Status, _ title: String, _ text: String, back: String? = nil, clearsSession: Bool = false, close: Bool = false,
        allow: String? = nil
    ) {
        self.allow = allow
        self.status = status
        self.title = title
        self.text = text
        self.back = back
        self.clearsSession = clearsSession
        self.close = close
    }
}
