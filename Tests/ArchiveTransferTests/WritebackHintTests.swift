@testable import ArchiveTransfer
import Foundation
import TestSupport
import Testing

/// The export's writeback advice: when it is given, and that it never changes what is written.
@Suite(.timeLimit(.minutes(5)))
struct WritebackHintTests {
    /// Advice recorded instead of given to the kernel.
    final class Recorder {
        var ranges: [Range<Int>] = []
    }

    @Test func adviceFollowsEveryEightMebibytesAndCoversTheStretchBefore() {
        let recorder = Recorder()
        var hint = WritebackHint { offset, length in recorder.ranges.append(offset..<(offset + length)) }
        let mebibyte = 1 << 20
        for _ in 0..<(30 * 16) { hint.wrote(64 << 10) }  // 30 MiB in 64 KiB chunks
        #expect(hint.written == 30 * mebibyte)
        #expect(recorder.ranges == [0..<(8 * mebibyte), 0..<(16 * mebibyte), (8 * mebibyte)..<(24 * mebibyte)])
        // Nothing before the first 8 MiB, and one large write counts whole.
        let small = Recorder()
        var single = WritebackHint { offset, length in small.ranges.append(offset..<(offset + length)) }
        single.wrote(8 * mebibyte - 1)
        #expect(small.ranges.isEmpty)
        single.wrote(20 * mebibyte)
        #expect(small.ranges == [0..<(28 * mebibyte - 1)])
    }

    @Test func aFileKeepsEveryByteAndAPipeIgnoresTheAdvice() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("large.out")
        #expect(TestFile.create(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        var hint = WritebackHint(descriptor: handle.fileDescriptor)
        var expected = Data()
        for index in 0..<(20 * 16) {  // 20 MiB: two pieces of advice
            let chunk = Data(repeating: UInt8(truncatingIfNeeded: index), count: 64 << 10)
            try handle.write(contentsOf: chunk)
            hint.wrote(chunk.count)
            expected.append(chunk)
        }
        try handle.close()
        #expect(FileManager.default.contents(atPath: path) == expected)

        let pipe = Pipe()
        var piped = WritebackHint(descriptor: pipe.fileHandleForWriting.fileDescriptor)
        piped.wrote(WritebackHint.interval)  // posix_fadvise fails with ESPIPE: ignored
        #expect(piped.written == WritebackHint.interval)
    }
}
