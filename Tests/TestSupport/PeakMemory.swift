import Foundation

/// A child's peak resident memory, measured so that the test process's own size
/// does not count.
///
/// Linux records a process's high-water RSS across `execve` and copies it through
/// `fork` and `vfork`: a child spawned by a test process of 400 MB reports a
/// `ru_maxrss` of at least 400 MB, whatever it used itself. So the child is
/// started by a small trampoline (Python: `fork`, `execv`, `wait4`), whose own
/// few MB are all it inherits, and which writes the child's `ru_maxrss`.
public enum PeakMemory {
    static let trampoline = """
        import os, sys
        out, argv = sys.argv[1], sys.argv[2:]
        pid = os.fork()
        if pid == 0:
            try:
                os.execv(argv[0], argv)
            finally:
                os._exit(127)
        _, status, usage = os.wait4(pid, 0)
        open(out, "w").write(str(usage.ru_maxrss))
        sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
        """

    /// Runs `executable` to completion like ``ChildProcess/run(_:_:environment:input:timeout:)``
    /// and returns its result with its own peak resident memory, in MiB.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, timeout: Duration = .seconds(120)
    ) throws -> (result: ChildProcess.Result, peakMiB: Double) {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("peak-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: report) }
        let result = try ChildProcess.run(try Prerequisite.path(of: "python3", debianPackage: "python3"), ["-c", trampoline, report, executable] + arguments, environment: environment, timeout: timeout)
        let kilobytes = Double((try? String(contentsOfFile: report, encoding: .utf8)).flatMap { Double($0) } ?? .infinity)
        return (result, kilobytes / 1024)
    }
}
