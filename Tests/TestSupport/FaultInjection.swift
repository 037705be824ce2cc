import Foundation

/// A disk that errs or fills under a real binary: `Tests/FaultInjection/fault_injection.c`,
/// an interposed library (`LD_PRELOAD`) that fails the Nth write, sync, truncation, rename,
/// link or file creation under one directory with `EIO` or `ENOSPC` and lets every other
/// call through. Compiled here, once, beside the built products (with the toolchain's
/// `clang`, or `cc`), so that a test reaches the files the crash VFS cannot: an export's
/// temporary file and rename, an import's new database file, the action log, and SQLite's
/// own, in `archive` and `archive-server` as users run them.
public enum FaultInjection {
    /// The error the failing call returns.
    public enum Code: String, Sendable, CaseIterable {
        /// An I/O error: the disk failed.
        case eio = "EIO"
        /// No space left on the device.
        case enospc = "ENOSPC"
    }

    /// One counted call of a child, as its log names it.
    public struct Call: Sendable, Hashable, CustomStringConvertible {
        /// Its number (1-based, per process).
        public let number: Int
        /// The C function (`pwrite64`, `fsync`, `rename`...).
        public let operation: String
        /// The file it wrote, or the name it made.
        public let path: String
        /// Whether it was the one failed.
        public let failed: Bool

        /// `N operation path`.
        public var description: String { "\(number) \(operation) \(path)" }
    }

    /// The compiled library's path, built when its source is newer than it.
    public static func library() throws -> String {
        try compiled.get()
    }

    /// The environment (added to a child's) that makes it fail its `at`th counted call under
    /// `directory` with `code` (none when `at` is 0), and log every counted call to `log`
    /// (outside `directory`).
    public static func environment(directory: String, at: Int, code: Code = .eio, log: String? = nil) throws -> [String: String] {
        var environment = [
            "LD_PRELOAD": try library(),
            "FAULT_INJECTION_DIRECTORY": directory,
            "FAULT_INJECTION_AT": String(at),
            "FAULT_INJECTION_ERRNO": code.rawValue,
        ]
        if let log { environment["FAULT_INJECTION_LOG"] = log }
        return environment
    }

    /// The calls a log lists (empty when the child made none).
    public static func calls(inLog path: String) -> [Call] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 2)
            guard parts.count == 3, let number = Int(parts[0]) else { return nil }
            let failed = parts[2].hasSuffix(" FAILED")
            return Call(number: number, operation: String(parts[1]), path: String(failed ? parts[2].dropLast(7) : parts[2]), failed: failed)
        }
    }

    /// The library's source.
    static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../FaultInjection/fault_injection.c").standardized

    private static let compiled: Result<String, any Error> = Result { try compile() }

    private static func compile() throws -> String {
        let products = BuiltProduct.url(named: "archive").deletingLastPathComponent()
        let library = products.appendingPathComponent("libfault_injection.so")
        let fileManager = FileManager.default
        if let built = try? fileManager.attributesOfItem(atPath: library.path)[.modificationDate] as? Date,
           let written = try fileManager.attributesOfItem(atPath: source.path)[.modificationDate] as? Date,
           built >= written {
            return library.path
        }
        // Built under a name of this process's, then renamed: test processes running at once
        // never load a half-written library.
        let partial = products.appendingPathComponent("libfault_injection.so.\(getpid())")
        let result = try ChildProcess.run(
            try compiler(), ["-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-o", partial.path, source.path, "-ldl"], timeout: .seconds(120))
        guard result.status == 0 else {
            try? fileManager.removeItem(at: partial)
            throw Prerequisite.Missing(description: "the fault-injection library did not compile: \(result.stderr)")
        }
        guard rename(partial.path, library.path) == 0 else {
            throw Prerequisite.Missing(description: "cannot put \(library.path) in place: \(String(cString: strerror(errno)))")
        }
        return library.path
    }

    /// The toolchain's `clang` (on PATH beside `swift`), else Debian's `cc`.
    private static func compiler() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/clang"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return try Prerequisite.path(of: "cc", debianPackage: "gcc")
    }
}
