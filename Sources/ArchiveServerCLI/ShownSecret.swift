import ArchiveCommandLine

/// A secret shown once on standard output (a device's token, a sign-in link): written and
/// flushed at once, so that a write that failed (a full disk, a closed descriptor behind
/// the redirection) fails the command with what was made and what to do, instead of
/// exiting 0 over a secret nobody received.
enum ShownSecret {
    /// Prints `text` and flushes standard output; if that failed, throws `lost` with the
    /// system's reason appended.
    static func show(_ text: String, lost: String) throws(ServerCLIError) {
        print(text)
        do {
            try StandardOutputError.flushStandardOutput()
        } catch {
            throw ServerCLIError("\(lost) (standard output: \(error.reason))")
        }
    }
}
