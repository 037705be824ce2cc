import ArchiveFront
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `archive settings [list|get KEY|set KEY VALUE|reset KEY]`.
struct SettingsCommand: ArchiveSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "List, read, set or reset the database's settings.",
        discussion: """
            Settings are typed: `set` parses the value as the key's type (bool: true or false; \
            string; date: ISO 8601) and refuses a value of another type. installDate is written \
            once, when the database is created. `list` and `get` never create a database.
            """)

    enum Operation: String, ExpressibleByArgument, CaseIterable {
        case list, get, set, reset
    }

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand

    @Argument(help: "list (default), get KEY, set KEY VALUE, or reset KEY (back to its default).")
    var operation: Operation = .list

    @Argument(help: ArgumentHelp("The setting (see `archive settings list`).", valueName: "key"))
    var key: String?

    @Argument(help: ArgumentHelp("The new value, for set.", valueName: "value"))
    var value: String?

    func validate() throws {
        switch operation {
        case .list:
            guard key == nil else { throw ValidationError("settings list takes no key; use `archive settings get KEY`") }
        case .get, .reset, .set:
            guard let key else { throw ValidationError("settings \(operation.rawValue) needs a KEY (see `archive settings list`)") }
            let setting = try Self.setting(key)
            switch operation {
            case .set:
                guard let value else { throw ValidationError("settings set needs a VALUE: \(setting.name) takes \(setting.expected)") }
                if let reason = setting.readOnlyReason { throw ValidationError(SettingsError.readOnly(key: setting.name, reason: reason).description) }
                do { _ = try setting.parse(value) } catch { throw ValidationError(error.description) }
            default:
                // A read-only setting's reset is refused by the repository, unless its entry
                // is damaged (another program wrote the wrong type): the way out `check` names.
                guard value == nil else { throw ValidationError("settings \(operation.rawValue) takes only a KEY") }
            }
        }
    }

    private static func setting(_ key: String) throws -> ArchiveSetting {
        do { return try ArchiveSetting.named(key) } catch { throw ValidationError(error.description) }
    }

    func run() async throws {
        let readsOnly = operation == .list || operation == .get
        try await execute(session: openSession(readsOnly ? .existingOnly : .createIfMissing, catalog: .unused))
    }

    @MainActor
    private func execute(session: ArchiveSession) async throws {
        let store = session.makeStore()
        switch operation {
        case .list, .get: store.dispatch(.settings(.load))
        case .set: store.dispatch(.settings(.set(key: key ?? "", value: value ?? "")))
        case .reset: store.dispatch(.settings(.reset(key: key ?? "")))
        }
        await store.finishEffects()
        let state = store.state.settingsState
        if let message = state.errorMessage { throw CLIError(message) }
        if operation == .list {
            if json { try JSONOutput.print(state.entries) } else { Self.printTable(state.entries) }
            return
        }
        guard let entry = state.entries.first(where: { $0.setting.name == key }) else { throw CLIError("setting '\(key ?? "")' was not read back") }
        if json { return try JSONOutput.print(entry) }
        switch operation {
        case .get:
            if let value = entry.value {
                print(TerminalText.visible(value.description))
            } else {
                Terminal.message("\(entry.setting.name) has no value (\(entry.setting.summary))")
            }
        case .set:
            print("\(entry.setting.name) = \(TerminalText.visible(entry.value?.description ?? ""))")
        default:
            print("\(entry.setting.name) reset to its default: \(TerminalText.visible(entry.value?.description ?? "none"))")
        }
    }

    /// `key  type  value  default`, aligned; values terminal-safe.
    private static func printTable(_ entries: [SettingEntry]) {
        let width = entries.map(\.setting.name.count).max() ?? 0
        for entry in entries {
            let value = entry.value.map { TerminalText.visible($0.description) } ?? "(none)"
            var line = entry.setting.name.rightPadded(to: width + 2)
            line += entry.setting.type.rawValue.rightPadded(to: 8)
            line += value.isEmpty ? "\"\"" : value
            let fallback = entry.setting.defaultValue.map { $0.description.isEmpty ? "\"\"" : TerminalText.visible($0.description) } ?? "none"
            line += entry.setting.readOnlyReason != nil ? "  (read-only)" : "  (default \(fallback)\(entry.storedValue == nil ? "" : ", set"))"
            print(line)
        }
    }
}
