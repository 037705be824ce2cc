import Foundation
import TestSupport

/// Starts the `ReliabilityHelper` executable with `arguments`, its stdout read line by line.
func helper(_ arguments: [String]) throws -> ChildProcess {
    try ChildProcess(BuiltProduct.url(named: "ReliabilityHelper").path, arguments, streamingStdout: true)
}

/// Writes an import file of `count` favorites with IDs from `firstID`.
func writeImportFile(_ path: String, firstID: Int, count: Int) throws {
    var text = "[\n"
    text.reserveCapacity(count * 150)
    for index in 0..<count {
        if index > 0 { text += ",\n" }
        let id = firstID + index
        text += #"{"id":\#(id),"photoUrl":"https://p/\#(id).jpg","category":"洋食","dishName":"料理 \#(id)","shopName":"店","introduction":"紹介文 \#(id) チーズたっぷり","storedAt":"2026-01-01T00:00:00.000Z"}"#
    }
    try (text + "\n]\n").write(toFile: path, atomically: false, encoding: .utf8)
}
