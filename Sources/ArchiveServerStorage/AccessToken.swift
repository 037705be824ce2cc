import Crypto

/// A user's bearer token: 32 random bytes (256 bits) from the system's secure generator
/// (getrandom on Linux), written `fa_` and 43 base64url characters. The service keeps only
/// its SHA-256 (``hash``): a copy of the database does not let anyone sign in.
public struct AccessToken: Sendable, Hashable {
    /// The token as the user sends it: `Authorization: Bearer <text>`.
    public let text: String

    /// What every token starts with (so a leaked one is easy to recognize and search for).
    public static let prefix = "fa_"

    /// A new random token.
    public static func generate() -> AccessToken {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return AccessToken(text: prefix + base64URL(bytes))
    }

    /// The token `text` as received (not checked: a malformed one matches no hash).
    public init(text: String) {
        self.text = text
    }

    /// SHA-256 of the token's UTF-8 bytes: what the database stores and looks up.
    public var hash: [UInt8] {
        Array(SHA256.hash(data: Array(text.utf8)))
    }

    /// Whether `a` and `b` are equal, in a time that depends only on their lengths.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    private static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var output: [UInt8] = []
        var buffer = 0, bits = 0
        for byte in bytes {
            buffer = buffer << 8 | Int(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                output.append(alphabet[(buffer >> bits) & 63])
            }
        }
        if bits > 0 { output.append(alphabet[(buffer << (6 - bits)) & 63]) }
        return String(decoding: output, as: UTF8.self)
    }
}
