import Foundation

/// A program's system calls as `strace -f -y -s 65536` wrote them, read to check that an
/// acknowledgement comes after what it acknowledges is on disk: at the moment the program
/// starts writing its acknowledgement, no file it keeps has a write that no `fsync` or
/// `fdatasync` of that file followed, and no directory holding them has an entry created,
/// linked, renamed or removed that no sync of the directory followed (a new file's name is
/// only durable once its directory is synced: ALICE, OSDI 2014).
///
/// Conservative where the trace cannot tell: every `open` with `O_CREAT` counts as creating
/// the file. A call another thread interrupted (`<unfinished ...>`) takes effect where it
/// resumes, except a write, which counts from where it started.
public struct SyscallTrace: Sendable {
    /// One system call.
    public struct Call: Sendable, CustomStringConvertible {
        /// The call's name (`write`, `fdatasync`, `renameat2`, ...).
        public let name: String
        /// Its arguments as strace printed them (descriptors decorated with their paths by `-y`).
        public let arguments: String
        /// What it returned, as printed (`0`, `14`, `3</tmp/x>`, `-1 ENOENT (...)`).
        public let result: String
        /// The line it was read from (its last, for a resumed call).
        public let line: String
        public var description: String { String(line.prefix(240)) }
    }

    /// The calls, in the order they took effect.
    public let calls: [Call]

    /// Runs `executable` with `arguments` under strace (the calls it traces, and `also`) and
    /// reads the trace it wrote.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        in directory: TemporaryDirectory, also: [String] = [], timeout: Duration = .seconds(120)
    ) throws -> (trace: SyscallTrace, result: ChildProcess.Result) {
        let output = directory.path("trace-\(UUID().uuidString).txt")
        let result = try ChildProcess.run(try strace(), Self.options(output: output, also: also) + [executable] + arguments, environment: environment, timeout: timeout)
        defer { try? FileManager.default.removeItem(atPath: output) }
        return (try SyscallTrace(contentsOf: output), result)
    }

    /// The strace program (Debian's strace; a missing one fails the test, naming the package).
    public static func strace() throws -> String {
        try Prerequisite.path(of: "strace", debianPackage: "strace")
    }

    /// strace's options for a trace this type reads, written to `output`: every thread, paths
    /// of descriptors, whole strings, and the calls that write, sync or change a directory,
    /// with `also` (`read`, to see a key arrive).
    public static func options(output: String, also: [String] = []) -> [String] {
        ["-f", "-y", "-s", "65536", "-o", output, "-e", "trace=" + (traced + also).joined(separator: ",")]
    }

    private static let traced = [
        "write", "writev", "pwrite64", "pwritev", "pwritev2", "sendto", "sendmsg", "ftruncate", "fallocate",
        "fsync", "fdatasync", "sync_file_range", "open", "openat", "creat", "unlink", "unlinkat",
        "rename", "renameat", "renameat2", "link", "linkat",
    ]

    /// Reads the trace strace wrote to `path`.
    public init(contentsOf path: String) throws {
        try self.init(text: String(contentsOfFile: path, encoding: .utf8))
    }

    /// Reads a trace's text.
    public init(text: String) {
        var calls: [Call] = []
        var pending: [Substring: (name: String, arguments: String)] = [:]
        for line in text.split(separator: "\n") {
            // "PID  name(args) = result", "PID  name(args <unfinished ...>", "PID  <... name resumed>rest) = result"
            guard let space = line.firstIndex(of: " ") else { continue }
            let pid = line[..<space]
            let rest = line[space...].drop { $0 == " " }
            if rest.hasPrefix("<... ") {
                guard let resumed = rest.range(of: " resumed>") else { continue }
                let name = String(rest[rest.index(rest.startIndex, offsetBy: 5)..<resumed.lowerBound])
                guard let started = pending.removeValue(forKey: pid), started.name == name else { continue }
                let (tail, result) = Self.splitResult(rest[resumed.upperBound...])
                calls.append(Call(name: name, arguments: started.arguments + tail, result: result, line: String(line)))
            } else if let open = rest.firstIndex(of: "(") {
                let name = String(rest[..<open])
                let body = rest[rest.index(after: open)...]
                if body.hasSuffix(" <unfinished ...>") {
                    let arguments = String(body.dropLast(" <unfinished ...>".count))
                    if Self.writes.contains(name) {
                        calls.append(Call(name: name, arguments: arguments, result: "?", line: String(line)))
                    } else {
                        pending[pid] = (name, arguments)
                    }
                } else {
                    let (arguments, result) = Self.splitResult(body)
                    calls.append(Call(name: name, arguments: arguments, result: result, line: String(line)))
                }
            }
        }
        self.calls = calls
    }

    /// `args) = result` split at its last `) = `.
    private static func splitResult(_ text: Substring) -> (String, String) {
        guard let end = text.range(of: ") = ", options: .backwards) else { return (String(text), "?") }
        return (String(text[..<end.lowerBound]), String(text[end.upperBound...]))
    }

    /// The calls that change a file's content or size.
    private static let fileWrites: Set<String> = ["write", "writev", "pwrite64", "pwritev", "pwritev2", "ftruncate", "fallocate"]
    /// Those, and the calls that send on a socket: where an acknowledgement can be written.
    private static let writes = fileWrites.union(["sendto", "sendmsg"])

    /// The index of the first write whose data holds `text` (as strace escapes it: non-ASCII
    /// bytes in octal, so pass ASCII) to a descriptor that is not one of the kept files (whose
    /// pages may hold the same text: a schema's `stored_at`).
    public func firstWrite(containing text: String, notTo keeps: (String) -> Bool) -> Int? {
        calls.firstIndex { call in
            guard Self.writes.contains(call.name), call.arguments.contains(text) else { return false }
            return Self.firstPath(in: call.arguments).map { !keeps($0) } ?? true
        }
    }

    /// The indices of the writes to a socket (`N<socket:[INODE]>`) whose data holds `text`:
    /// a server's answers.
    public func socketWrites(containing text: String) -> [Int] {
        calls.indices.filter { index in
            let call = calls[index]
            return Self.writes.contains(call.name) && call.arguments.contains(text)
                && call.arguments.prefix { $0 != "," }.contains("<socket:[")
        }
    }

    /// The files of the SQLite database at `path` that hold its committed state: the file,
    /// its WAL and its rollback journal (not `-shm`, which SQLite rebuilds from the WAL).
    public static func databaseFiles(_ path: String) -> @Sendable (String) -> Bool {
        { $0 == path || $0 == path + "-wal" || $0 == path + "-journal" }
    }

    /// What was not on disk when call `index` started: the kept files (those `keeps` says yes
    /// to, by path) written since their last sync, and the directories holding them with an
    /// entry changed since theirs. Empty when everything acknowledged is durable.
    public func unsynced(before index: Int, keeps: (String) -> Bool) -> [String] {
        var dirtyFiles: [String: String] = [:]  // path: the call that dirtied it
        var dirtyDirectories: [String: String] = [:]
        for call in calls[..<index] {
            let failed = call.result.hasPrefix("-1")
            switch call.name {
            case _ where Self.fileWrites.contains(call.name):
                if let path = Self.firstPath(in: call.arguments), keeps(path) { dirtyFiles[path] = call.line }
            case "fsync", "fdatasync":
                guard !failed, let path = Self.firstPath(in: call.arguments) else { continue }
                dirtyFiles[path] = nil
                dirtyDirectories[path] = nil
            case "open", "openat", "creat":
                guard !failed, call.name == "creat" || call.arguments.contains("O_CREAT"),
                      let path = Self.firstPath(in: call.result), keeps(path) else { continue }
                dirtyDirectories[Self.directory(of: path)] = call.line
            case "unlink", "unlinkat", "rename", "renameat", "renameat2", "link", "linkat":
                guard !failed else { continue }
                for path in Self.quotedPaths(call.arguments, relativeTo: Self.descriptorPaths(call.arguments)) where keeps(path) {
                    // SQLite removes a WAL (and its index) at the last close, after a checkpoint
                    // that synced the database: one that comes back after a power cut holds frames
                    // the database has already, replayed onto the same pages. Not so a rollback
                    // journal, whose removal commits: it must be durable.
                    if call.name.hasPrefix("unlink"), path.hasSuffix("-wal") || path.hasSuffix("-shm") { continue }
                    dirtyDirectories[Self.directory(of: path)] = call.line
                }
            default:
                continue
            }
        }
        return dirtyFiles.map { "\($0.key) written, not synced: \($0.value.prefix(240))" }.sorted()
            + dirtyDirectories.map { "\($0.key) (directory) changed, not synced: \($0.value.prefix(240))" }.sorted()
    }

    /// The indices of the syncs (`fsync`, `fdatasync`) of a kept file written since its last
    /// sync, before call `index`: the commits whose data had reached the disk by then. An
    /// acknowledgement with none before it was written before its commit, whatever the
    /// trace holds after.
    public func syncedWrites(before index: Int, keeps: (String) -> Bool) -> [Int] {
        var dirty: Set<String> = []
        var synced: [Int] = []
        for (position, call) in calls[..<index].enumerated() {
            guard !call.result.hasPrefix("-1"), let path = Self.firstPath(in: call.arguments), keeps(path) else { continue }
            if Self.fileWrites.contains(call.name) {
                dirty.insert(path)
            } else if call.name == "fsync" || call.name == "fdatasync", dirty.remove(path) != nil {
                synced.append(position)
            }
        }
        return synced
    }

    /// The path strace printed after the first descriptor of `text`: an argument
    /// (`5</tmp/x-wal>`) or a result (`4</tmp/x>`).
    static func firstPath(in text: String) -> String? {
        descriptorPaths(text).first
    }

    /// Every `N<path>` of `text`, in order.
    static func descriptorPaths(_ text: String) -> [String] {
        var paths: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "<") {
            let before = rest[..<open]
            let digits = before.reversed().prefix { $0.isNumber }
            rest = rest[rest.index(after: open)...]
            guard !digits.isEmpty, let close = rest.firstIndex(of: ">") else { continue }
            let path = String(rest[..<close])
            if path.hasPrefix("/") { paths.append(path) }
            rest = rest[rest.index(after: close)...]
        }
        return paths
    }

    /// The quoted paths of `arguments` (`"/tmp/x-wal"`), made absolute against the directory
    /// descriptors printed before them (`AT_FDCWD</tmp/dir>`).
    static func quotedPaths(_ arguments: String, relativeTo directories: [String]) -> [String] {
        let parts = arguments.split(separator: "\"", omittingEmptySubsequences: false)
        var paths: [String] = []
        for (index, part) in parts.enumerated() where index % 2 == 1 {
            let path = String(part)
            if path.hasPrefix("/") {
                paths.append(path)
            } else if let base = directories.first {
                paths.append(base + "/" + path)
            }
        }
        return paths
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
