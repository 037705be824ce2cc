import Foundation

/// How these tests get a private mount namespace: `unshare -m` as root, or
/// `unshare -r -m` (a user namespace) elsewhere, where the kernel allows one.
public enum MountSupport {
    public static let unshare = "/usr/bin/unshare"
    public static let namespaceArguments = getuid() == 0 ? ["-m", "--propagation", "private"] : ["-r", "-m", "--propagation", "private"]

    /// Why a tmpfs cannot be mounted here, with what to install or change; `nil` when it can.
    public static let missing: String? = {
        guard FileManager.default.isExecutableFile(atPath: unshare) else {
            return "\(unshare) is missing: apt-get install -y util-linux (README, \"Tests\")"
        }
        let probe = try? ChildProcess.run(unshare, namespaceArguments + ["sh", "-c",
            "d=$(mktemp -d) && mount -t tmpfs -o size=1m tmpfs $d; s=$?; umount $d 2>/dev/null; rmdir $d; exit $s"])
        guard probe?.status == 0 else {
            return "cannot mount a tmpfs in a private mount namespace (\(probe?.stderr ?? "unshare did not run")): "
                + "run the tests as root (CI does) or enable user namespaces (sysctl kernel.unprivileged_userns_clone=1)"
        }
        return nil
    }()
}
