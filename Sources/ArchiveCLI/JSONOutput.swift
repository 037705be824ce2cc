import ArchiveFront
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Prints values as JSON on stdout: sorted keys, pretty-printed, slashes unescaped.
enum JSONOutput {
    static func print<Value: Encodable>(_ value: Value) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        var data = try encoder.encode(value)
        data.append(UInt8(ascii: "\n"))
        do {
            try StandardOutputError.flushStandardOutput()  // what `print` wrote before goes first
            try data.withUnsafeBytes { try FileDescriptorHandle.standardOutput.write($0) }
        } catch let error as FileDescriptorHandle.WriteFailed {
            throw StandardOutputError(reason: error.description)
        }
    }
}
