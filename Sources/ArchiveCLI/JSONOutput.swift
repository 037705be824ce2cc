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
        let data = try encoder.encode(value)
        var bytes = [UInt8](data)
        bytes.append(UInt8(ascii: "\n"))
        do {
            try StandardOutputError.flushStandardOutput()  // what `print` wrote before goes first
            try FileDescriptorHandle.standardOutput.write(contentsOf: bytes)
        } catch let error as FileDescriptorHandle.WriteFailed {
            throw StandardOutputError(reason: error.description)
        }
    }
}
