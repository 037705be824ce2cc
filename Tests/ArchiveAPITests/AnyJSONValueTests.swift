import ArchiveAPI
@testable import ArchiveHTTP
import Foundation
import Testing

/// How a catalog body that is not JSON is told from JSON of another shape
/// (``AnyJSONValue``, FoundationEssentials' JSONDecoder alone).
@Suite(.timeLimit(.minutes(5)))
struct AnyJSONValueTests {
    @Test(arguments: [
        "", " ", "<html>oops</html>", "[1, 2", "[1] x", #"{"id": }"#, "nul", #"{"a" 1}"#, "[1,,2]",
        // Checked only when decoded: a number's digits, a string's escapes, anywhere in the body.
        "[01]", "[1.]", #"["\x"]"#, #"[{"id": 17, "extra": [{"deep": "\u12"}]}]"#, #"[{"unknown": -.5}]"#,
    ])
    func aBodyThatIsNotJSONIsMalformed(body: String) {
        #expect {
            try HTTPArchiveRepository.decode([ArchiveSceneEntity].self, from: Data(body.utf8), url: "http://x/archive_images")
        } throws: { error in
            guard case .malformedJSON(let url, _) = error as? ArchiveAPIError else { return false }
            return url == "http://x/archive_images"
        }
    }

    @Test(arguments: [
        "3", #""text""#, "null", "{}", #"[{"id": 1}]"#, "[[]]", "[1,]",
        // Valid numbers that JSONDecoder refuses as a Double.
        "[-0.0e-5]", "[0e5, 1E+5, 123456789012345678901234567890]", #"[true, null, "\u00e9", {"a": []}]"#,
    ])
    func wellFormedJSONOfAnotherShapeIsAnUnexpectedShape(body: String) {
        #expect {
            try HTTPArchiveRepository.decode([ArchiveSceneEntity].self, from: Data(body.utf8), url: "http://x/archive_images")
        } throws: { error in
            guard case .unexpectedShape = error as? ArchiveAPIError else { return false }
            return true
        }
    }

    /// A body that decodes is not read again: a value the catalog ignores is not
    /// checked to the digit (the structure of the whole text is).
    @Test func aCatalogThatDecodesIsTakenAsItIs() throws {
        let body = #"[{"id": 17, "photoUrl": "u", "category": "c", "dishName": "d", "shopName": "s", "introduction": "i", "rating": 01}]"#
        #expect(try HTTPArchiveRepository.decode([ArchiveSceneEntity].self, from: Data(body.utf8), url: "u").map(\.id) == [17])
        #expect(throws: ArchiveAPIError.self) {
            try HTTPArchiveRepository.decode([ArchiveSceneEntity].self, from: Data((body + " x").utf8), url: "u")
        }
    }

    @Test func anEmptyArrayIsAnEmptyCatalog() throws {
        #expect(try HTTPArchiveRepository.decode([ArchiveSceneEntity].self, from: Data(" [ ] ".utf8), url: "u").isEmpty)
    }
}
