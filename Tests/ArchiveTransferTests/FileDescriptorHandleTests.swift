@testable import ArchiveTransfer
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The file descriptor handle the import, the export and the fronts write through.
@Suite(.blockingWork, .timeLimit(.minutes(5))) struct FileDescriptorHandleTests {
    @Test func aFailedWriteSaysWhatTheSystemSaid() throws {
        let descriptor = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        let handle = FileDescriptorHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        #expect {
            try handle.write(contentsOf: [1, 2, 3])
        } throws: { error in
            (error as? FileDescriptorHandle.WriteFailed)?.description == "No space left on device"
        }
        #expect(throws: FileDescriptorHandle.WriteFailed.self) { try handle.write("text") }
    }

    /// 4 MiB through a pipe whose buffer holds 64 KiB, to a reader on another
    /// thread: every byte arrives, in order, and the reader sees the end of the
    /// file once the handle that owns the write end is gone.
    @Test func everyByteReachesTheReaderAndTheOwnersEndClosesThePipe() throws {
        // Close-on-exec: a binary another test spawns meanwhile must not inherit the
        // write end, or the reader would see the end of the file only when it exits.
        let (readEnd, writeEnd) = try CloseOnExecPipe.make()
        defer { close(readEnd) }
        let sent = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12) }
        let writer = Thread {
            // The handle owns the write end: the reader sees the end of the file
            // once the handle is gone.
            let handle = FileDescriptorHandle(fileDescriptor: writeEnd, closeOnDealloc: true)
            try? handle.write(contentsOf: sent)
        }
        writer.start()
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            var ready = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            try #require(poll(&ready, 1, 10_000) == 1, "nothing arrived for 10 s: the write end was never closed")
            let count = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            try #require(count >= 0)
            if count == 0 { break }
            received.append(contentsOf: chunk[..<count])
        }
        #expect(received.count == sent.count)
        #expect(received == sent)
    }

    /// Seen from the read end of a pipe (tests run in parallel, so a closed
    /// descriptor's number may already name another test's file).
    @Test func aHandleClosesOnlyTheDescriptorItOwns() throws {
        for owns in [false, true] {
            let pair = try CloseOnExecPipe.make()  // not inherited by another test's child
            let ends = [pair.read, pair.write]
            defer {
                close(ends[0])
                if !owns { close(ends[1]) }
            }
            do {
                let handle = FileDescriptorHandle(fileDescriptor: ends[1], closeOnDealloc: owns)
                try handle.write("x")
            }
            var byte: UInt8 = 0
            #expect(read(ends[0], &byte, 1) == 1 && byte == UInt8(ascii: "x"))
            var state = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
            #expect(poll(&state, 1, 0) == (owns ? 1 : 0))
            #expect((state.revents & Int16(POLLHUP) != 0) == owns, "owns: \(owns)")
        }
    }

    /// The tests' pipes stay out of the programs other tests spawn (the reader of
    /// the test above once waited two minutes for such a stranger to exit).
    @Test func aTestsPipeIsNotInheritedByAProgramSpawnedMeanwhile() throws {
        let (readEnd, writeEnd) = try CloseOnExecPipe.make()
        defer {
            close(readEnd)
            close(writeEnd)
        }
        // The child lists the descriptors it holds, as `ls` sees them through /proc.
        let result = try ChildProcess.run("/bin/sh", ["-c", "ls /proc/$$/fd"])
        #expect(result.status == 0)
        let held = Set(result.stdout.split(separator: "\n").compactMap { Int32($0) })
        #expect(held.isDisjoint(with: [readEnd, writeEnd]), "the child holds \(held.sorted())")
        #expect(held.isSuperset(of: [0, 1, 2]))
    }

    @Test func aFileThatCannotBeOpenedIsNil() {
        #expect(FileDescriptorHandle(forReadingAtPath: "/nonexistent/file.json") == nil)
    }
}
