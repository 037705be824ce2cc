#if canImport(Glibc)
import Glibc
#endif

/// Whether a host (an address to listen on, a service's URL) is this machine only: the
/// server refuses plain HTTP elsewhere, and the client refuses to send a token there.
public enum LoopbackAddress {
    /// `localhost`, 127.0.0.0/8 and `::1` (IPv4-mapped too) are; any other name or address
    /// (0.0.0.0 and `::` listen on every interface) is not.
    public static func isLoopback(_ name: String) -> Bool {
        // A URL's IPv6 host may come in brackets.
        let host = name.hasPrefix("[") && name.hasSuffix("]") ? String(name.dropFirst().dropLast()) : name
        if host.lowercased() == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            let bytes = withUnsafeBytes(of: v6) { Array($0) }
            if bytes[..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }  // ::1
            // ::ffff:127.x.x.x
            return bytes[..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
        }
        return false
    }
}
