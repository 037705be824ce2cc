@testable import ArchiveTUI
import Foundation
import Testing

/// Compares a rendered buffer with `Snapshots/NAME.txt`: its text and a map of
/// its styles. A missing snapshot is recorded (and the test fails, so that it
/// is looked at); `RECORD_SNAPSHOTS=1` re-records them all.
enum Snapshot {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

    /// The text of `buffer`, then one code per cell: H highlight, r red, R reverse, B bold, d dim, u underline, . plain.
    static func describe(_ buffer: ScreenBuffer) -> String {
        var text = "size: \(buffer.width)x\(buffer.height)\n"
        for y in 0..<buffer.height { text += "|" + buffer.line(y) + "|\n" }
        text += "styles:\n"
        for y in 0..<buffer.height {
            var codes = ""
            var last = Character(".")
            for x in 0..<buffer.width {
                let cell = buffer[x, y]
                if cell.isContinuation {
                    codes.append(last)
                    continue
                }
                let style = cell.style
                let code: Character =
                    style.background == .yellow ? "H" : style.foreground == .red ? "r" : style.reverse ? "R"
                    : style.bold ? "B" : style.dim ? "d" : style.underline ? "u" : "."
                codes.append(code)
                last = code
            }
            text += codes + "\n"
        }
        return text
    }

    static func assert(_ buffer: ScreenBuffer, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = directory.appendingPathComponent(name + ".txt")
        let actual = describe(buffer)
        let record = ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1"
        guard !record, let expected = try? String(contentsOf: url, encoding: .utf8) else {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try actual.write(to: url, atomically: false, encoding: .utf8)
            Issue.record("recorded snapshot \(name); check it and run again", sourceLocation: sourceLocation)
            return
        }
        #expect(actual == expected, "snapshot \(name) differs:\n\(actual)", sourceLocation: sourceLocation)
    }
}
