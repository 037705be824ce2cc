// The Swift runtime's floor for a command whose async main awaits work off the
// main thread, as every `archive` command does (its store's effects run as tasks,
// and its store lives on the main actor): on Linux that first hop starts
// libdispatch's worker threads. process.sh times it beside the cold rows.

/// Awaits one detached task from the main actor, prints its value, exits.
@main
struct AsyncFloor {
    static func main() async {
        let value = await Task.detached { 42 }.value
        print(value)
    }
}
