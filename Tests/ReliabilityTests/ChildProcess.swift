import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A helper process whose stdout is read line by line as it writes, and which can be SIGKILLed.
final class ChildProcess {
    let process = Process()
    private let pipe = Pipe()
    private let errors: URL
    private var buffer = Data()

    static let helper = BuiltProduct.url(named: "ReliabilityHelper")

    init(_ arguments: [String], executable: URL = ChildProcess.helper) throws {
        errors = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = pipe
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning { kill() }
        try? FileManager.default.removeItem(at: errors)
    }

    /// The next line the child wrote, waiting for it; `nil` once the child closed stdout.
    func nextLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    /// Kills the child with SIGKILL (no chance to clean up) and reaps it.
    func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Waits for the child to exit; returns its status and what it wrote to stderr.
    func wait() -> (status: Int32, stderr: String) {
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: FileManager.default.contents(atPath: errors.path) ?? Data(), as: UTF8.self))
    }
}

/// A small seeded generator: every run of the suite draws the same cases.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
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
    try (text + "\n]\n").write(toFile: path, atomically: true, encoding: .utf8)
}
