import ArchiveCommandLine
import ArchiveServerStorage
import ArchiveServer
import ArchiveServerPostgres
import ArgumentParser
import Logging
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `archive-server devices add|link|list|revoke USER [LABEL]`: a token per device, or a
/// browser signed in by a one-time link.
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "Manage a user's devices and their tokens.",
        discussion: """
            add USER LABEL: a new token for one more device of USER (on stdout, once: only \
            its hash is kept); it binds to the device ID that first syncs with it, and \
            serves no other. \
            link USER LABEL: a one-time sign-in URL (on stdout) for the web page: opened \
            within 10 minutes, it signs that browser in as a new device of USER labelled LABEL \
            (built from --public-url). \
            list USER: each token and the device syncing with it: when added, last seen, \
            how far it has pulled, the removals kept for it. \
            revoke USER LABEL: that token stops working at once and its device is \
            forgotten (the removals kept for it can go); the user's favorites stay.
            """)

    /// What to do.
    enum Action: String, ExpressibleByArgument, CaseIterable {
        case add, link, list, revoke
    }

    @OptionGroup var storage: ServerStorageOptions
    @ParentCommand var root: ArchiveServerCommand

    @Argument(help: "add, link, list or revoke.")
    var action: Action

    @Argument(help: "The user's name.")
    var user: String

    @Argument(help: "The device's label (1 to 64 letters, digits, '.', '_', '-'), for add and revoke.")
    var label: String?

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    @Option(name: .customLong("public-url"), help: ArgumentHelp(
        "With link: the service's address as browsers reach it (http://HOST:PORT or https://…; default \(Self.defaultPublicURL), the server's own default address).",
        valueName: "url"))
    var publicURLOption: String?

    /// The address a link names when `--public-url` is not given: `serve`'s defaults.
    static let defaultPublicURL = "http://127.0.0.1:8080"

    /// The address the link names.
    var publicURL: String { publicURLOption ?? Self.defaultPublicURL }

    /// How long a sign-in link works: 10 minutes.
    static let linkLifetime: Int64 = 600_000

    func validate() throws {
        if action == .list, label != nil { throw ValidationError("devices list takes a user's name only") }
        if action != .list, label == nil { throw ValidationError("devices \(action.rawValue) needs a user's name and a device's label") }
        // A name or label no one can have is a usage error (64), found before any database opens.
        do {
            _ = try AccountName.user(user)
            if let label { _ = try AccountName.device(label) }
        } catch {
            throw ValidationError(error.description)
        }
        if action == .link, Self.linkBase(publicURL) == nil {
            throw ValidationError("--public-url must be http:// or https:// followed by a host (and a port), got \(publicURL.prefix(200).debugDescription)")
        }
    }

    func run() async throws {
        var logger = Logger(label: "archive-server")
        logger.logLevel = .warning
        let storage = self.storage.merged(over: root.storage)
        let action = self.action, json = self.json
        // As stored (names ignore case); validate() refused any that breaks the rule.
        let user = try AccountName.user(self.user)
        let label = try self.label.map { try AccountName.device($0) } ?? ""
        do {
            try await storage.withUsers(logger: logger, creating: action != .list) { users in
                switch action {
                case .add:
                    let token = try await users.addDevice(label, of: user, now: Int64(Date().timeIntervalSince1970 * 1000))
                    try ShownSecret.show(
                        json ? try ServerJSON.text(["name": user, "device": label, "token": token.text]) : token.text,
                        lost: "added device \(label) of \(user), but its token could not be shown, and no one has it: "
                            + "archive-server devices revoke \(user) \(label), then add it again")
                    StandardStream.error(
                        "added device \(label) of \(user): the token above is shown this once (give it to archive sync --token-stdin or "
                            + "ARCHIVE_SYNC_TOKEN on that device); it binds to the first device that syncs with it\n")
                case .link:
                    let now = Int64(Date().timeIntervalSince1970 * 1000)
                    let secret = try await users.createSignInLink(for: user, label: label, now: now, expiresAt: now + Self.linkLifetime)
                    let url = (Self.linkBase(publicURL) ?? publicURL) + "/signin?link=" + secret.text
                    try ShownSecret.show(
                        json ? try ServerJSON.text(["name": user, "device": label, "url": url]) : url,
                        lost: "the sign-in link for device \(label) of \(user) could not be shown, so no one can use it: run archive-server devices link \(user) \(label) again")
                    StandardStream.error(
                        "open the URL above in the browser to sign in as device \(label) of \(user): it works once, for 10 minutes; "
                            + "archive-server devices revoke \(user) \(label) signs that browser out\n")
                    if publicURLOption == nil {
                        // The server's own address is not known here: say which one the link assumes.
                        StandardStream.error(
                            "the link assumes the service at \(Self.defaultPublicURL), serve's default: if it listens elsewhere (--host, --port) "
                                + "or browsers reach it through a proxy, make the link again with --public-url URL (devices revoke \(user) \(label) cancels this one)\n")
                    }
                case .list:
                    let devices = try await users.devices(of: user)
                    if json {
                        print(try ServerJSON.text(DeviceList(user: user, devices: devices)))
                    } else if devices.isEmpty {
                        print("\(user) has no device tokens: archive-server devices add \(user) LABEL")
                    } else {
                        for device in devices { print(Self.line(device)) }
                    }
                case .revoke:
                    try await users.revokeDevice(label, of: user)
                    StandardStream.error("device \(label) of \(user) is signed out: its token (or its sign-in link not used yet) stopped working and the device was forgotten; \(user)'s favorites stay\n")
                }
            }
        } catch let error as ServerStorageError {
            throw ServerCLIError(error.description)
        } catch let error as PostgresStorageError {
            throw ServerCLIError(error.description)
        }
    }

    /// `url` without a trailing `/`, when it is `http://` or `https://` and a host (a letter or
    /// digit at least, an optional port) with no path, query or fragment; else `nil`.
    static func linkBase(_ url: String) -> String? {
        let trimmed = url.hasSuffix("/") ? String(url.dropLast()) : url
        for scheme in ["http://", "https://"] where trimmed.hasPrefix(scheme) {
            let authority = trimmed.dropFirst(scheme.count)
            let allowed = authority.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ":")
                    || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
            }
            let named = authority.utf8.contains { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }
            return named && allowed ? trimmed : nil
        }
        return nil
    }

    /// What `devices list --json` prints.
    struct DeviceList: Encodable {
        let user: String
        let devices: [DeviceAccount]
    }

    /// One device, tab-separated: label, device ID (or that none synced yet), added, last
    /// seen, pulled cursor, the removals kept for it.
    static func line(_ device: DeviceAccount) -> String {
        func time(_ milliseconds: Int64) -> String {
            Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(.iso8601)
        }
        let label = device.shared ? "\(device.label) (shared)" : device.label
        if let until = device.pendingLinkUntil {
            return "\(label)\tsign-in link not used yet\tmade \(time(device.addedAt))\tworks until \(time(until)) (devices revoke cancels it)"
        }
        guard let id = device.device else { return "\(label)\tnot synced yet\tadded \(time(device.addedAt))" }
        guard let lastSeen = device.lastSeen else { return "\(label)\t\(id)\tadded \(time(device.addedAt))\tno changes pulled or pushed yet" }
        return "\(label)\t\(id)\tadded \(time(device.addedAt))\tlast seen \(time(lastSeen))\tpulled to \(device.pulled ?? 0)\t\(device.tombstonesHeld) removals kept for it"
    }
}
