import Crypto
import Foundation
import SwiftASN1
import X509

/// A certificate authority made at run time for a test (swift-certificates), and the
/// server certificates it issues: PEM files in a directory, as an operator would give them.
struct TestAuthority {
    let name: DistinguishedName
    let key: P256.Signing.PrivateKey
    let certificate: Certificate

    init(_ commonName: String) throws {
        name = try DistinguishedName { CommonName(commonName) }
        key = P256.Signing.PrivateKey()
        let now = Date()
        certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: now - 86_400, notValidAfter: now + 86_400 * 30, issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(key))
    }

    /// The authority's own certificate, in PEM (what `--ca-file` takes).
    func write(to path: String) throws {
        try certificate.serializeAsPEM().pemString.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Issues a server certificate for `names` (DNS names; `127.0.0.1` is added as an
    /// address unless `withLoopbackAddress` is false), valid from `notBefore` to `notAfter`,
    /// and writes it and its key to `certificate` and `key` (PEM).
    func issue(
        names: [String], withLoopbackAddress: Bool = true, notBefore: Date = Date() - 3_600, notAfter: Date = Date() + 86_400,
        usage: [ExtendedKeyUsage.Usage] = [.serverAuth], certificate certificatePath: String, key keyPath: String
    ) throws {
        let serverKey = P256.Signing.PrivateKey()
        var alternatives = names.map { GeneralName.dnsName($0) }
        if withLoopbackAddress { alternatives.append(.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))) }
        let subject = try DistinguishedName { CommonName(names.first ?? "server") }
        let issued = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(serverKey.publicKey),
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: name, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                SubjectAlternativeNames(alternatives)
                try ExtendedKeyUsage(usage)
                Critical(KeyUsage(digitalSignature: true))
            },
            issuerPrivateKey: .init(key))
        try issued.serializeAsPEM().pemString.write(toFile: certificatePath, atomically: true, encoding: .utf8)
        try serverKey.pemRepresentation.write(toFile: keyPath, atomically: true, encoding: .utf8)
    }
}
