public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A program run by a test: the one way the tests start processes.
///
/// Spawned with `posix_spawn` and reaped with `waitpid`, not with Foundation's
/// `Process`: on Linux `Process` waits on a descriptor the child inherits, so a
/// program that leaves a daemon behind (tmux's server) would never be seen to
/// exit. Standard output and error go to temporary files (so a chatty child
/// never blocks on a full pipe), or standard output to a pipe read line by line.
public final class ChildProcess {
    /// What the child reads.
    public enum Input {
        /// Nothing (`/dev/null`).
        case null
        /// These bytes, through a pipe (so the child sees a non-seekable input).
        case pipe(Data)
    }

    /// How a child ended.
    public struct Result: Sendable {
        /// The exit status, or 128 + the signal that ended it.
        public let status: Int32
        /// Everything it wrote to standard output (what `nextLine()` did not take).
        public let stdout: String
        /// Everything it wrote to standard error.
        public let stderr: String
        /// The CPU time it used, user and system, in seconds.
        public var cpuSeconds: Double = 0
        /// Its peak resident memory, in MiB.
        public var peakResidentMiB: Double = 0

        /// stdout parsed as JSON.
        public func json() throws -> Any {
            try JSONSerialization.jsonObject(with: Data(stdout.utf8))
        }
    }

    /// The child's process ID.
    public let pid: pid_t
    private let stdoutPath: String?
    private let stderrPath: String
    private let stdoutPipe: Int32?
    private var buffer: [UInt8] = []
    private var result: Result?

    /// `posix_spawn_file_actions_addclosefrom_np`, where the C library has it.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// Starts `executable` with `arguments`; `streamingStdout` sends standard output
    /// to a pipe that ``nextLine()`` reads as the child writes.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        input: Input = .null, streamingStdout: Bool = false
    ) throws {
        let stamp = "\(getpid())-\(UUID().uuidString)"
        let temporary = FileManager.default.temporaryDirectory.path
        stderrPath = temporary + "/child-\(stamp).err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }

        // Pipes are close-on-exec (CloseOnExecPipe): another test's child must not hold their ends.
        var inputPipe: [Int32] = [-1, -1]
        switch input {
        case .null:
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .pipe:
            let ends = try CloseOnExecPipe.make()
            inputPipe = [ends.read, ends.write]
            posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
            posix_spawn_file_actions_addclose(&actions, inputPipe[1])
        }
        var outputPipe: [Int32] = [-1, -1]
        if streamingStdout {
            let ends = try CloseOnExecPipe.make()
            outputPipe = [ends.read, ends.write]
            posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
            posix_spawn_file_actions_addclose(&actions, outputPipe[0])
            stdoutPath = nil
            stdoutPipe = outputPipe[0]
        } else {
            let path = temporary + "/child-\(stamp).out"
            posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            stdoutPath = path
            stdoutPipe = nil
        }
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Nothing but these three reaches the child, whatever the test process has open without
        // close-on-exec (a library's socket, another test's file): a child that held another
        // test's connection open kept a server from ever seeing it close.
        // glibc 2.34's posix_spawn_file_actions_addclosefrom_np, which Swift's Glibc module does
        // not declare: looked up at run time; without it, the descriptors this suite opens are
        // close-on-exec already (CloseOnExecPipe, RawHTTPConnection, TestFile).
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { variables.forEach { free($0) } }
        var pid = pid_t()
        // The child starts as from a shell: every signal at its default action and none
        // blocked, whatever the test runner ignores or blocks (an ignored signal stays
        // ignored across exec, which would hide a program's own handling, SIGXFSZ's say).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        // ETXTBSY: an executable just written (a copied binary) is still open for
        // writing in a child that another thread is forking; it goes away in a moment.
        var spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, variables)
        let retryUntil = ContinuousClock.now + .seconds(2)
        while spawned == ETXTBSY, ContinuousClock.now < retryUntil {
            sched_yield()
            spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, variables)
        }
        if inputPipe[0] >= 0 { close(inputPipe[0]) }
        if outputPipe[1] >= 0 { close(outputPipe[1]) }
        guard spawned == 0 else {
            if inputPipe[1] >= 0 { close(inputPipe[1]) }
            if outputPipe[0] >= 0 { close(outputPipe[0]) }
            throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: executable, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO)])
        }
        self.pid = pid
        if case .pipe(let data) = input {
            // Written from another thread, so a child that reads slowly never blocks the test.
            let descriptor = inputPipe[1]
            Thread.detachNewThread {
                data.withUnsafeBytes { bytes in
                    guard let base = bytes.baseAddress else { return }
                    var offset = 0
                    while offset < bytes.count {
                        let written = write(descriptor, base + offset, bytes.count - offset)
                        if written <= 0 { break }
                        offset += written
                    }
                }
                close(descriptor)
            }
        }
    }

    deinit {
        if result == nil {
            Glibc.kill(pid, SIGKILL)
            _ = reap()
        }
        if let stdoutPipe { close(stdoutPipe) }
        if let stdoutPath { unlink(stdoutPath) }
        unlink(stderrPath)
    }

    /// Runs a program to completion and returns how it ended. A program still
    /// running after `timeout` is killed (status 137), so a hang fails a test
    /// instead of stalling the suite.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: Input = .null,
        timeout: Duration = .seconds(120)
    ) throws -> Result {
        let child = try ChildProcess(executable, arguments, environment: environment, input: input)
        let pid = child.pid
        let watchdog = DispatchWorkItem { Glibc.kill(pid, SIGKILL) }
        let (seconds, attoseconds) = timeout.components
        DispatchQueue.global().asyncAfter(deadline: .now() + Double(seconds) + Double(attoseconds) / 1e18, execute: watchdog)
        let result = child.wait()
        watchdog.cancel()
        return result
    }

    /// The next line the child wrote to standard output, waiting for it; `nil`
    /// once it closed its output. Needs `streamingStdout`.
    public func nextLine() -> String? {
        guard let stdoutPipe else { return nil }
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(stdoutPipe, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// Whether the child has exited (it is not reaped: ``wait()`` still returns how it ended).
    public var hasExited: Bool {
        if result != nil { return true }
        var info = siginfo_t()
        return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._sigchld.si_pid == pid
    }

    /// Sends `signal` to the child.
    public func signal(_ signal: Int32) {
        if result == nil { Glibc.kill(pid, signal) }
    }

    /// Kills the child with SIGKILL (no chance to clean up) and reaps it.
    @discardableResult
    public func kill() -> Result {
        signal(SIGKILL)
        return wait()
    }

    /// Waits up to `limit` for the child to exit and returns how it ended, or `nil` if
    /// it was still running then: it is killed (SIGKILL) and reaped, so a hang fails
    /// the test that expected an exit instead of stalling it.
    public func wait(orKillAfter limit: Duration) -> Result? {
        if let result { return result }
        let pid = self.pid
        let killed = Mutex(false)
        let watchdog = DispatchWorkItem {
            killed.withLock { $0 = true }
            Glibc.kill(pid, SIGKILL)
        }
        let (seconds, attoseconds) = limit.components
        DispatchQueue.global().asyncAfter(deadline: .now() + Double(seconds) + Double(attoseconds) / 1e18, execute: watchdog)
        let result = wait()
        watchdog.cancel()
        return killed.withLock { $0 } ? nil : result
    }

    /// Waits for the child to exit and returns how it ended.
    @discardableResult
    public func wait() -> Result {
        if let result { return result }
        var usage = rusage()
        let status = reap(&usage)
        let stdout: String
        if let stdoutPath {
            stdout = String(decoding: FileManager.default.contents(atPath: stdoutPath) ?? Data(), as: UTF8.self)
        } else {
            stdout = String(decoding: buffer, as: UTF8.self)
        }
        let stderr = String(decoding: FileManager.default.contents(atPath: stderrPath) ?? Data(), as: UTF8.self)
        var result = Result(status: status, stdout: stdout, stderr: stderr)
        result.cpuSeconds = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        result.peakResidentMiB = Double(usage.ru_maxrss) / 1024
        self.result = result
        return result
    }

    private func reap(_ usage: UnsafeMutablePointer<rusage>? = nil) -> Int32 {
        var status: Int32 = 0
        while wait4(pid, &status, 0, usage) < 0, errno == EINTR {}
        return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }
}
