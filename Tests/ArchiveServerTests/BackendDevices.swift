import ArchiveServerStorage
import ArchiveServer
import ArchiveStorage
import Synchronization
import ArchiveSyncModel

/// One user's devices on an in-process backend: each device ID signs in with a token of
/// its own (``UserDirectory/addDevice(_:of:now:)``, labelled `d-<ID>`), added the first
/// time the device is asked for, as a user gives each device its own.
final class BackendDevices: Sendable {
    let backend: any SyncBackend
    let users: any UserDirectory
    let user: String
    let now: Int64
    private let signedIn = Mutex<[DeviceID: AuthenticatedUser]>([:])

    init(backend: any SyncBackend, users: any UserDirectory, user: String, now: Int64) {
        self.backend = backend
        self.users = users
        self.user = user
        self.now = now
    }

    /// The user as `device`'s own token signs it in.
    func user(for device: DeviceID) async throws -> AuthenticatedUser {
        if let user = signedIn.withLock({ $0[device] }) { return user }
        let token = try await users.addDevice("d-" + device.description.prefix(12), of: user, now: now)
        guard let user = try await backend.authenticate(token) else { throw ServerStorageError.noSuchUser(user) }
        signedIn.withLock { $0[device] = user }
        return user
    }
}
