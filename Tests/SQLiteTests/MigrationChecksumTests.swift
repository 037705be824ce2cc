import MigrationChecksum
import Testing

/// A migration's checksum is SHA-256 of its SQL, as 64 lowercase hex digits:
/// databases store it, so it must never change for a given text.
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
}
