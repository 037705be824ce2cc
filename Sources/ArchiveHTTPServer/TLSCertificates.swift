#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import NIOCertificateReloading
package import NIOSSL

/// The server's certificate chain and private key (`--tls-certificate`, `--tls-key`), read
/// from PEM files at start and again on ``reload()`` (SIGHUP: a renewed certificate without a
/// restart), by swift-nio-extras' `TimedCertificateReloader`: each new connection's handshake
/// uses the pair loaded last; a pair that does not load, or a key that is not the
/// certificate's, is refused and the pair loaded before kept; so is a certificate that has
/// expired (every client would refuse it): at start the server does not start. TLS 1.2
/// (AEAD suites only: no CBC, whose padding oracles LUCKY13 exploits) and 1.3, HTTP/1.1.
public final class TLSCertificates: Sendable {
    /// The certificate chain's PEM file (the server's certificate first).
    public let certificatePath: String
    /// The private key's PEM file.
    public let keyPath: String
    private let reloader: TimedCertificateReloader
    private let now: @Sendable () -> Date

    /// What a loaded pair is: the certificate's subject and when it expires.
    public struct Summary: Sendable, CustomStringConvertible {
        /// The leaf certificate's subject, as BoringSSL prints it.
        public let subject: String
        /// When the leaf certificate expires.
        public let expires: Date

        /// "SUBJECT, valid until DATE".
        public var description: String { "\(subject), valid until \(expires.formatted(.iso8601))" }
    }

    /// Reads the pair; throws ``TLSCertificateError`` naming the files and what is wrong
    /// (an expired certificate too, by the clock `now` gives).
    public init(certificate: String, key: String, now: @escaping @Sendable () -> Date = { Date() }) throws(TLSCertificateError) {
        certificatePath = certificate
        keyPath = key
        self.now = now
        do {
            reloader = try TimedCertificateReloader.makeReloaderValidatingSources(
                // Reloaded on SIGHUP only (``reload()``): the timer never runs.
                refreshInterval: .seconds(86_400),
                certificateSource: .init(location: .file(path: certificate), format: .pem),
                privateKeySource: .init(location: .file(path: key), format: .pem))
        } catch {
            throw Self.refusal(error, certificate: certificate, key: key)
        }
        // What the reloader loaded, not a second read of the file.
        let expires = summary.expires
        if expires < now() { throw .expired(certificate: certificate, on: expires) }
    }

    /// The pair loaded last.
    public var summary: Summary {
        guard case .certificate(let leaf)? = reloader.sslContextConfigurationOverride.certificateChain?.first else {
            return Summary(subject: "?", expires: .distantPast)
        }
        return Summary(subject: leaf.description, expires: Date(timeIntervalSince1970: TimeInterval(leaf.notValidAfter)))
    }

    /// TLS 1.2's suites the server offers: forward-secret AEAD ones only (Mozilla's
    /// "intermediate" list). TLS 1.3's are all AEAD, and BoringSSL does not let them be set.
    static let tls12CipherSuites: [NIOTLSCipher] = [
        .TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
        .TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, .TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, .TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    ]

    /// The server's TLS configuration: the reloader's pair, TLS 1.2 (AEAD suites only) or
    /// later, HTTP/1.1.
    package func configuration() throws -> TLSConfiguration {
        var configuration = try TLSConfiguration.makeServerConfiguration(certificateReloader: reloader)
        configuration.minimumTLSVersion = .tlsv12
        configuration.cipherSuiteValues = Self.tls12CipherSuites
        configuration.applicationProtocols = ["http/1.1"]
        return configuration
    }

    /// Reads both files again and, if they load as a pair, serves them from the next
    /// connection on; otherwise throws and keeps serving the pair loaded before.
    @discardableResult
    public func reload() throws(TLSCertificateError) -> Summary {
        try Self.checkNotExpired(certificatePath, now: now())
        do {
            try reloader.reload()
        } catch {
            throw Self.refusal(error, certificate: certificatePath, key: keyPath)
        }
        return summary
    }

    /// Throws ``TLSCertificateError/expired(certificate:on:)`` when the first certificate of
    /// the PEM file at `path` expired before `now`: checked before a reload, which cannot be
    /// taken back. A file that does not load is left to the reloader, which says why.
    private static func checkNotExpired(_ path: String, now: Date) throws(TLSCertificateError) {
        guard let leaf = try? NIOSSLCertificate.fromPEMFile(path).first else { return }
        let expiry = Date(timeIntervalSince1970: TimeInterval(leaf.notValidAfter))
        if expiry < now { throw .expired(certificate: path, on: expiry) }
    }

    private static func refusal(_ error: any Error, certificate: String, key: String) -> TLSCertificateError {
        switch error as? TimedCertificateReloader.Error {
        case .certificatePathNotFound(certificate)?: .unreadable(path: certificate, reason: "it cannot be read (no such file, or no permission)")
        case .privateKeyPathNotFound(key)?: .unreadable(path: key, reason: "it cannot be read (no such file, or no permission)")
        case .publicKeyMismatch?: .mismatch(certificate: certificate, key: key)
        default: .invalid(certificate: certificate, key: key, reason: "\(error)".split(whereSeparator: \.isNewline).joined(separator: " "))
        }
    }
}

/// Why the server's certificate or key could not be used.
public enum TLSCertificateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A file cannot be read.
    case unreadable(path: String, reason: String)
    /// The key is not the one the certificate was issued for.
    case mismatch(certificate: String, key: String)
    /// A file is not a PEM certificate chain or private key.
    case invalid(certificate: String, key: String, reason: String)
    /// The certificate expired: every client would refuse it.
    case expired(certificate: String, on: Date)

    /// What failed, on which file, and what to do.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            "cannot read \(path): \(reason); give --tls-certificate and --tls-key PEM files the server can read"
        case .mismatch(let certificate, let key):
            "the TLS key \(key) is not the key of the certificate \(certificate): give the key it was issued for"
        case .expired(let certificate, let date):
            "the TLS certificate \(certificate) expired on \(date.formatted(.iso8601)): every client would refuse it; renew it (certbot renew, or a new one of your authority) and give the new pair"
        case .invalid(let certificate, let key, let reason):
            "cannot use the TLS certificate \(certificate) with the key \(key): \(reason); give a PEM certificate chain (the server's certificate first) and its PEM private key"
        }
    }
}
