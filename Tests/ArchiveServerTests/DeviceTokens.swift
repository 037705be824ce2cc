import ArchiveStorage
import ArchiveSyncModel

/// The tokens of one user's devices on a ``ServiceProcess``: `tokens(device)` (a device ID)
/// or `tokens.database(path)` (an `archive` database) is that device's own token, added
/// (`archive-server devices add USER LABEL`) the first time it is asked for, as a user
/// gives each device its own.
final class DeviceTokens {
    let server: ServiceProcess
    let user: String
    private var tokens: [String: String] = [:]

    init(server: ServiceProcess, user: String) {
        self.server = server
        self.user = user
    }

    /// `device`'s token.
    func callAsFunction(_ device: DeviceID) throws -> String {
        try token(labelled: "d-" + device.description.prefix(12))
    }

    /// The token of the `archive` database at `path` (a device of its own: its device ID
    /// is its own), labelled by its file name.
    func database(_ path: String) throws -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return try token(labelled: "db-" + String(name.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }.prefix(60)))
    }

    /// The token of the device labelled `label`.
    func named(_ label: String) throws -> String {
        try token(labelled: label)
    }

    private func token(labelled label: String) throws -> String {
        if let token = tokens[label] { return token }
        let token = try server.addDevice(label, of: user)
        tokens[label] = token
        return token
    }
}
