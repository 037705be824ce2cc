import Crypto
import MigrationChecksum
import Testing

/// A migration's checksum is SHA-256 of its SQL, as 64 lowercase hex digits:
/// databases store it, so it must never change for a given text.
@Suite(.timeLimit(.minutes(5)))
struct MigrationChecksumTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (String(repeating: "a", count: 1000), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"),
        ("チーズ\n", "ad71aa19d9319eab451f905799fb6a2a25c3fd5365879fe6be5ccc1b1473f334"),
    ])
    func knownDigests(input: String, digest: String) {
        #expect(MigrationChecksum.sha256(of: input) == digest)
    }

    /// A million "a": the standard's long-message vector (15,625 blocks).
    @Test func aMillionAs() {
        #expect(MigrationChecksum.sha256(of: String(repeating: "a", count: 1_000_000))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Every length from 0 to 300 bytes (the padding's cases around 55, 56, 64, 119 and
    /// 120 bytes among them) and random texts, against swift-crypto's SHA-256.
    @Test func agreesWithSwiftCrypto() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...300 {
            let text = String((0..<length).map { _ in "abcdefチーズ \n;'".randomElement(using: &generator)! }.prefix(length))
            let expected = SHA256.hash(data: Array(text.utf8)).map { byte in
                let digits = Array("0123456789abcdef")
                return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
            }.joined()
            #expect(MigrationChecksum.sha256(of: text) == expected, "\(text.utf8.count) bytes: \(text)")
        }
    }
}
