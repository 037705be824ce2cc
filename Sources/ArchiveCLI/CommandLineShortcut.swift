import ArchiveFront

/// The most frequent command lines (`archive search`, `add` and `remove` with
/// the shared options), recognized without ArgumentParser, so that such a short
/// process does not pay for its parse.
///
/// ArgumentParser finds a command's options by reflection: the first time its
/// `Mirror` meets a generic type (`Option<String>`, `OptionGroup<GlobalOptions>`),
/// the runtime scans all of the binary's 9,400 protocol-conformance records. In a
/// cold `archive search` that parse was a quarter of the process's CPU samples
/// (`perf record`, static build), more than the search itself.
///
/// The shortcut takes only a strict subset of what ArgumentParser accepts, and
/// answers `nil` for anything else: help, `--`, `--name=value`, a repeated or
/// unknown option, a value that starts with `-`, an invalid value, a second
/// keyword. ArgumentParser then parses that command line as it always has, so
/// every usage error, help text and message is its own; the shortcut never
/// reports one. What it accepts, it reads as ArgumentParser does: the same
/// ``SearchRequest`` or ``StorageRequest``, checked by the same validations
/// (`CommandLineShortcutTests` compares the two on a corpus of command lines).
enum CommandLineShortcut: Equatable, Sendable {
    /// `archive search [KEYWORD] [--category C | -c C] [--last]`.
    case search(SearchRequest)
    /// `archive add ID`.
    case add(StorageRequest<AddOperation>)
    /// `archive remove ID`.
    case remove(StorageRequest<RemoveOperation>)

    // MARK: - Parsing

    /// The options that take a value, wherever the subcommand's name is.
    private static let valueOptions = ["--database", "--api-url", "--timeout", "--log-actions"]

    /// Whether `argument` looks like an option to the shortcut: it starts with the
    /// byte `-` (a few more than ArgumentParser's `-` prefix, and those are left to it).
    private static func isOptionLike(_ argument: String) -> Bool {
        argument.utf8.first == UInt8(ascii: "-")
    }

    /// Recognizes `arguments` (without the program's name), or `nil` when
    /// ArgumentParser must parse them.
    init?(arguments: [String]) {
        var options = CommandOptions()
        // Every option at most once, before and after the subcommand together. Arrays,
        // not sets: a `Set<String>`'s first use cost a cold command its metadata (`perf record`).
        var given: [String] = []
        var subcommand: String?
        var operands: [String] = []
        var category = ""
        var last = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard Self.isOptionLike(argument) else {
                if subcommand == nil {
                    guard ["search", "add", "remove"].contains(argument) else { return nil }
                    subcommand = argument
                } else {
                    operands.append(argument)
                }
                continue
            }
            let name = argument == "-c" ? "--category" : argument
            guard !given.contains(name) else { return nil }
            given.append(name)
            switch name {
            case "--json":
                options.json = true
            case "--last" where subcommand == "search":
                last = true
            case _ where Self.valueOptions.contains(name) || (name == "--category" && subcommand == "search"):
                guard index < arguments.count, !Self.isOptionLike(arguments[index]) else { return nil }
                let value = arguments[index]
                index += 1
                switch name {
                case "--database": options.database = value
                case "--api-url": options.apiURL = value
                case "--log-actions": options.logActions = value
                case "--category": category = value
                default:
                    guard let seconds = Double(value) else { return nil }
                    options.timeout = seconds
                }
            default:
                return nil
            }
        }
        guard (try? options.validate()) != nil else { return nil }
        switch subcommand {
        case "search":
            guard operands.count <= 1 else { return nil }
            let keyword = operands.first ?? ""
            if last, !keyword.isEmpty || !category.isEmpty { return nil }
            self = .search(SearchRequest(keyword: keyword, category: category, last: last, options: options))
        case "add", "remove":
            guard operands.count == 1, let id = Int(operands[0]), id > 0 else { return nil }
            self = subcommand == "add"
                ? .add(StorageRequest(id: id, options: options))
                : .remove(StorageRequest(id: id, options: options))
        default:
            return nil
        }
    }

    // MARK: - Running

    /// Runs the command, as its ArgumentParser command's `run()` would, on the main
    /// actor where every request runs (no hop on the way).
    @MainActor
    func run() async throws {
        switch self {
        case .search(let request): try await request.run()
        case .add(let request): try await request.run()
        case .remove(let request): try await request.run()
        }
    }
}
