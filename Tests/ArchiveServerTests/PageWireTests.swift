import Crypto
import Foundation
import TestSupport
import Testing

/// What the page costs on the wire (issue 78, "Light"), on the real server: its HTML,
/// stylesheet and script gzip-compressed when the browser asks, and only then; the first
/// search view within 15 kB; the stylesheet and script at addresses named after their
/// content, kept by the browser for ever; the event stream never compressed or held.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct PageWireTests {
    /// `bytes` gunzipped (Python's zlib: an implementation other than the server's).
    static func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let result = try ChildProcess.run(
            "/usr/bin/python3", ["-c", "import sys, zlib; sys.stdout.buffer.write(zlib.decompress(sys.stdin.buffer.read(), 31))"],
            input: .pipe(Data(bytes)))
        guard result.status == 0 else { throw ServiceFailed(stderr: "not gzip: \(result.stderr)") }
        return Array(result.stdout.utf8)
    }

    @Test func theSearchViewIsCompressedWhenAskedAndWithin15kB() throws {
        let server = try ServiceProcess()
        _ = try server.addUser("alice")
        let browser = try WebClient.signedIn(server, user: "alice", label: "phone")
        let plain = try browser.get("/")
        #expect(plain.status == 200 && plain.header("Content-Encoding") == nil)
        #expect(plain.header("Vary")?.contains("Accept-Encoding") == true)
        let compressed = try browser.get("/", headers: ["Accept-Encoding: gzip, deflate, br"])
        #expect(compressed.status == 200 && compressed.header("Content-Encoding") == "gzip")
        #expect(compressed.header("Vary")?.contains("Accept-Encoding") == true)
        print("PageWireTests: the search view is \(plain.body.count) bytes, \(compressed.body.count) gzip-compressed")
        #expect(compressed.body.count <= 15_000, "the first search view is \(compressed.body.count) bytes on the wire")
        #expect(compressed.body.count * 3 < plain.body.count, "gzip saved little: \(compressed.body.count) of \(plain.body.count)")
        let unpacked = try Self.gunzip(compressed.body)
        #expect(unpacked == plain.body, "the compressed page is not the page")
        // Only when the browser takes gzip: a weight of 0 refuses it, `*` takes it.
        for (header, expected) in [("gzip;q=0", false), ("identity", false), ("br, *", true), ("GZIP ; q=0.5", true), ("*;q=0, gzip", true), ("*, gzip;q=0", false)] {
            let answer = try browser.get("/", headers: ["Accept-Encoding: \(header)"])
            #expect((answer.header("Content-Encoding") == "gzip") == expected, "Accept-Encoding: \(header)")
        }
    }

    @Test func theAssetsHaveAddressesNamedAfterTheirContentAndAreKeptForEver() throws {
        let server = try ServiceProcess()
        _ = try server.addUser("alice")
        let browser = try WebClient.signedIn(server, user: "alice", label: "phone")
        let page = try browser.get("/").text
        for pattern in [#"href="(/web/app\.([0-9a-f]{12})\.css)""#, #"src="(/web/app\.([0-9a-f]{12})\.js)""#] {
            let match = try #require(try NSRegularExpression(pattern: pattern).firstMatch(in: page, range: NSRange(page.startIndex..., in: page)))
            let path = try #require(Range(match.range(at: 1), in: page).map { String(page[$0]) })
            let fingerprint = try #require(Range(match.range(at: 2), in: page).map { String(page[$0]) })
            let asset = try server.call("GET", path)
            #expect(asset.status == 200 && asset.header("Cache-Control") == "public, max-age=31536000, immutable", "\(path)")
            let digest = SHA256.hash(data: asset.body).map { String(format: "%02x", $0) }.joined()
            #expect(digest.hasPrefix(fingerprint), "\(path) is not named after its content (\(digest.prefix(12)))")
            let compressed = try server.call("GET", path, headers: ["Accept-Encoding: gzip"])
            let unpacked = try Self.gunzip(compressed.body)
            #expect(compressed.header("Content-Encoding") == "gzip" && unpacked == asset.body, "\(path)")
            // The plain address still answers, never kept: a page of an older server may ask it.
            let plain = try server.call("GET", path.replacingOccurrences(of: ".\(fingerprint)", with: ""))
            #expect(plain.status == 200 && plain.header("Cache-Control") == "no-cache" && plain.body == asset.body)
        }
        #expect(!page.contains(#"href="/web/app.css""#) && !page.contains(#"src="/web/app.js""#), "the page names the assets' plain addresses")
        // Every unchanging text, whatever its type, tells a cache that its form follows
        // Accept-Encoding, once (the manifest's type is outside the compressed screens').
        for path in ["/web/manifest.webmanifest", "/sw.js", "/web/app.css"] {
            for accept in [["Accept-Encoding: gzip"], []] {
                let answer = try server.call("GET", path, headers: accept)
                #expect(answer.status == 200 && answer.header("Vary") == "Accept-Encoding", "\(path) \(accept): \(answer.header("Vary") ?? "no Vary")")
            }
        }
    }

    @Test func aSessionThatEndedElsewhereClearsWhatTheBrowserKept() throws {
        let server = try ServiceProcess()
        _ = try server.addUser("alice")
        let browser = try WebClient.signedIn(server, user: "alice", label: "phone")
        #expect(try browser.get("/").header("Clear-Site-Data") == nil, "a live session keeps what the browser kept")
        #expect(try server.admin(["devices", "revoke", "alice", "phone"]).status == 0)
        let answer = try browser.get("/favorites")
        #expect(answer.text.contains("Not signed in"))
        #expect(answer.header("Clear-Site-Data") == #""cache", "storage""#, "the revoked session's screens stay in the browser")
    }

    @Test func theEventStreamIsNeitherCompressedNorHeld() throws {
        let server = try ServiceProcess()
        _ = try server.addUser("alice")
        let browser = try WebClient.signedIn(server, user: "alice", label: "phone")
        let stream = try RawHTTPConnection(url: server.url)
        #expect(stream.send("GET /web/events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(browser.cookie)\r\nAccept-Encoding: gzip\r\n\r\n"))
        let head = try stream.read(until: "retry: 2000")
        #expect(head.contains("text/event-stream") && !head.lowercased().contains("content-encoding"), "\(head)")
    }
}
