import Hummingbird
import HTTPTypes
import Logging
import Mustache
import NIOCore

/// Renders the page's templates (``WebTemplates``) as answers: HTML, `no-store`.
struct PageRenderer: Sendable {
    let templates: MustacheLibrary
    let logger: Logger

    /// The renderer of the compiled-in templates.
    init(logger: Logger) throws {
        templates = try WebTemplates.library()
        self.logger = logger
    }

    /// `template` rendered with `view`, answered with `status`.
    func render(_ template: String, _ view: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        guard let html = templates.render(view, withTemplate: template) else {
            logger.error("no web template named \(template)")
            return Response(status: .internalServerError, headers: [.contentType: "text/plain; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: "the page failed to render")))
        }
        return Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// The page of a refusal: its title and text, a link back when it has one.
    func render(_ refusal: WebRefusal) -> Response {
        // An absent link is left out of the view: an `Optional` boxed in `Any` is not
        // absent to Mustache, it would render as the text "nil".
        var view: [String: Any] = ["title": refusal.title, "text": refusal.text]
        if let back = refusal.back { view["back"] = back }
        return render("message", view, status: refusal.status)
    }
}
