#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One setting of the archive: a key of the ``KeyValueStore`` with its type,
/// default and rules — the jobs UserDefaults had in the original app.
public struct ArchiveSetting: Sendable, Hashable, Identifiable {
    /// The key's name (`onboardingStatus`).
    public let name: String
    /// The type its value is stored and parsed as.
    public let type: KeyValueType
    /// What it reads as while unset (`nil`: nothing, such as an install date never recorded).
    public let defaultValue: SettingValue?
    /// What it is for, one line.
    public let summary: String
    /// Why it cannot be set by hand, when the archive keeps it itself.
    public let readOnlyReason: String?
    /// The only texts a string setting accepts, when it is a choice.
    public let choices: [String]?

    /// The name identifies the setting.
    public var id: String { name }

    /// The longest text a string setting keeps (a keyword, a category), in Unicode
    /// scalars: counted in grapheme clusters, one "character" of combining marks could
    /// be any size. Every way into a string setting checks it (``parse(_:)``: `settings
    /// set`, a remembered search), and a remembered value over it is not used.
    public static let maximumTextLength = 1_024

    // MARK: - The settings

    /// `true` while the first-launch onboarding is still to be shown (the original app's key).
    public static let onboardingStatus = ArchiveSetting(
        name: "onboardingStatus", type: .bool, defaultValue: .bool(true),
        summary: "show the first-launch onboarding (true until it is dismissed)")
    /// When this database was created; written once, by the archive.
    public static let installDate = ArchiveSetting(
        name: "installDate", type: .date, defaultValue: nil,
        summary: "when this database was created",
        readOnlyReason: "it is written once, when the database is created")
    /// The keyword of the last catalog search.
    public static let lastSearchKeyword = ArchiveSetting(
        name: "lastSearchKeyword", type: .string, defaultValue: .string(""),
        summary: "keyword of the last catalog search (`archive search --last`, the TUI's start)")
    /// The category of the last catalog search.
    public static let lastSearchCategory = ArchiveSetting(
        name: "lastSearchCategory", type: .string, defaultValue: .string(""),
        summary: "category of the last catalog search (\"\" for all)")
    /// The view the TUI showed last.
    public static let lastView = ArchiveSetting(
        name: "lastView", type: .string, defaultValue: .string(ArchiveView.archive.rawValue),
        summary: "the view the TUI opens with: archive or favorites",
        choices: ArchiveView.allCases.map(\.rawValue))

    /// This database's device ID for sync (docs/SYNC.md); made by the migration that added sync.
    public static let deviceID = ArchiveSetting(
        name: "deviceID", type: .string, defaultValue: nil,
        summary: "this database's device ID, which stamps its changes for sync",
        readOnlyReason: "it is made once, with the database's sync tables; changing it would make another device of this one")

    /// The sync service `archive sync` meets when given no PATH and no `--server` ("": none).
    /// Its token is never a setting: `--token`, `ARCHIVE_SYNC_TOKEN` or the token file.
    public static let syncServer = ArchiveSetting(
        name: "syncServer", type: .string, defaultValue: .string(""),
        summary: "the archive-server `archive sync` uses when given no PATH (\"\" for none; the token is never a setting)")

    /// The certificate authorities (a PEM file's absolute path) trusted for ``syncServer``'s
    /// certificate instead of the system's ("": the system's). Kept by `archive sync --server
    /// URL --ca-file PEM` with the server, and used only with that server.
    public static let syncCAFile = ArchiveSetting(
        name: "syncCAFile", type: .string, defaultValue: .string(""),
        summary: "the CA file (PEM, absolute path) trusted for syncServer's certificate instead of the system's (\"\" for the system's)")

    /// When this database last finished a sync (with a file or a service); written by the sync.
    public static let lastSync = ArchiveSetting(
        name: "lastSync", type: .date, defaultValue: nil,
        summary: "when this database last finished a sync (archive sync, the TUI)",
        readOnlyReason: "each sync that finishes writes it")

    /// Every setting, in the order `settings list` prints them.
    public static let all: [ArchiveSetting] = [onboardingStatus, installDate, lastSearchKeyword, lastSearchCategory, lastView, syncServer, syncCAFile, lastSync, deviceID]

    /// The setting named `name`, or ``SettingsError/unknownKey(_:known:)``.
    public static func named(_ name: String) throws(SettingsError) -> ArchiveSetting {
        guard let setting = all.first(where: { $0.name == name }) else {
            throw .unknownKey(name, known: all.map(\.name))
        }
        return setting
    }

    init(
        name: String, type: KeyValueType, defaultValue: SettingValue?, summary: String,
        readOnlyReason: String? = nil, choices: [String]? = nil
    ) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.summary = summary
        self.readOnlyReason = readOnlyReason
        self.choices = choices
    }

    // MARK: - Parsing

    /// What a value of this setting looks like, for messages.
    public var expected: String {
        if let choices { return "one of \(choices.joined(separator: ", "))" }
        return switch type {
        case .bool: "a bool: true or false"
        case .string: "a string of at most \(Self.maximumTextLength) characters (Unicode scalars), without control characters"
        default: "a \(type.rawValue), which only the archive writes"
        }
    }

    /// Whether `text` can be kept in a string setting: at most ``maximumTextLength``
    /// Unicode scalars, none of them a control character.
    public static func isAcceptableText(_ text: String) -> Bool {
        var count = 0
        for scalar in text.unicodeScalars {
            count += 1
            if count > maximumTextLength || scalar.properties.generalCategory == .control { return false }
        }
        return true
    }

    /// Reads `text` as this setting's type, refusing what does not fit. Only bool
    /// and string settings can be set (the one date, ``installDate``, is read-only).
    public func parse(_ text: String) throws(SettingsError) -> SettingValue {
        let invalid = SettingsError.invalidValue(key: name, value: text, expected: expected)
        switch type {
        case .bool:
            switch text.lowercased() {
            case "true": return .bool(true)
            case "false": return .bool(false)
            default: throw invalid
            }
        case .string:
            guard Self.isAcceptableText(text) else { throw invalid }
            if let choices, !choices.contains(text) { throw invalid }
            return .string(text)
        default:
            throw invalid
        }
    }
}
