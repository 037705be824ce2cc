#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import SwiftASN1

/// Why a service's TLS certificate was refused, in one sentence a person can act on.
///
/// BoringSSL reports a certificate it will not trust as `CERTIFICATE_VERIFY_FAILED`, whatever
/// the reason; so, once the verified handshake has failed, this looks at the certificate the
/// service presents (a second handshake that verifies nothing and sends nothing) and says
/// which of its dates or its issuer is the trouble. Nothing is sent on either connection.
enum CertificateRefusal {
    /// The reason `error` (from a request to `url`) is a refused certificate, or `nil` when
    /// it is another failure.
    static func reason(for error: any Error, url: URL, caFile: String?) async -> String? {
        let host = url.host ?? "?"
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "it is not issued for \(host) (the name the URL gives): use the name the certificate holds, or a certificate for \(host)"
        }
        guard case NIOSSLError.handshakeFailed(let failure) = error, "\(failure)".contains("CERTIFICATE_VERIFY_FAILED") else { return nil }
        let trusted = caFile.map { "the authorities of \($0) (--ca-file)" } ?? "the system's trusted authorities"
        guard let leaf = await presented(host: host, port: url.port ?? 443) else {
            return "it is not signed by \(trusted)"
        }
        let now = time(nil)
        if leaf.notValidAfter < now {
            return "it expired on \(Self.date(leaf.notValidAfter)): the service needs a renewed certificate (archive-server reads one on SIGHUP)"
        }
        if leaf.notValidBefore > now {
            return "it is not valid until \(Self.date(leaf.notValidBefore)): check this machine's clock, or the certificate's dates"
        }
        if let usage = (try? leaf.toDERBytes()).flatMap(Self.extendedKeyUsage(of:)),
           !usage.contains(Self.serverAuth), !usage.contains(Self.anyUsage) {
            return "it is not a server's certificate (its extended key usage allows \(Self.names(of: usage)), not serverAuth): "
                + "the service needs a certificate issued for TLS servers"
        }
        return "it is not signed by \(trusted)"
            + (caFile == nil ? ": for a certificate of your own, pass --ca-file PEM (or ARCHIVE_SYNC_CA_FILE) with the authority that signed it" : "")
    }

    static let serverAuth: ASN1ObjectIdentifier = [1, 3, 6, 1, 5, 5, 7, 3, 1]
    static let anyUsage: ASN1ObjectIdentifier = [2, 5, 29, 37, 0]
    static let extendedKeyUsageExtension: ASN1ObjectIdentifier = [2, 5, 29, 37]

    /// The usages an extended key usage allows, by their names ("clientAuth").
    static func names(of usage: [ASN1ObjectIdentifier]) -> String {
        let names: [ASN1ObjectIdentifier: String] = [
            [1, 3, 6, 1, 5, 5, 7, 3, 2]: "clientAuth", [1, 3, 6, 1, 5, 5, 7, 3, 3]: "codeSigning", [1, 3, 6, 1, 5, 5, 7, 3, 4]: "emailProtection",
            [1, 3, 6, 1, 5, 5, 7, 3, 8]: "timeStamping", [1, 3, 6, 1, 5, 5, 7, 3, 9]: "OCSPSigning",
        ]
        let known = usage.map { names[$0] ?? "\($0)" }
        return known.isEmpty ? "nothing" : known.joined(separator: ", ")
    }

    /// The extended key usages of the DER certificate `der` (RFC 5280: the extension
    /// 2.5.29.37 in the `[3]` extensions of its `TBSCertificate`), or `nil` when it has none
    /// or cannot be read.
    static func extendedKeyUsage(of der: [UInt8]) -> [ASN1ObjectIdentifier]? {
        func children(_ node: ASN1Node) -> [ASN1Node] {
            if case .constructed(let nodes) = node.content { return Array(nodes) }
            return []
        }
        guard let certificate = try? DER.parse(der), let tbs = children(certificate).first else { return nil }
        let extensionsTag = ASN1Identifier(tagWithNumber: 3, tagClass: .contextSpecific)
        guard let wrapper = children(tbs).first(where: { $0.identifier == extensionsTag }), let extensions = children(wrapper).first else { return nil }
        for item in children(extensions) {
            let parts = children(item)
            guard let first = parts.first, let last = parts.last, parts.count >= 2,
                  (try? ASN1ObjectIdentifier(derEncoded: first)) == Self.extendedKeyUsageExtension,
                  let value = try? ASN1OctetString(derEncoded: last), let usages = try? DER.parse(Array(value.bytes))
            else { continue }
            return children(usages).compactMap { try? ASN1ObjectIdentifier(derEncoded: $0) }
        }
        return nil
    }

    private static func date(_ time: time_t) -> String {
        Date(timeIntervalSince1970: TimeInterval(time)).formatted(.iso8601)
    }

    /// The leaf certificate `host`:`port` presents, read by a handshake that verifies
    /// nothing, within 5 seconds; `nil` if none came.
    private static func presented(host: String, port: Int) async -> NIOSSLCertificate? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        guard let context = try? NIOSSLContext(configuration: configuration) else { return nil }
        let group = MultiThreadedEventLoopGroup.singleton
        let outcome = Outcome(group.next().makePromise(of: NIOSSLCertificate?.self))
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // SNI for a name, none for an address (as AsyncHTTPClient sends it).
                    let hostname = host.first?.isNumber == true || host.contains(":") ? nil : host
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: hostname))
                    try channel.pipeline.syncOperations.addHandler(HandshakeWatcher(outcome: outcome))
                }
            }
        do {
            let channel = try await bootstrap.connect(host: host, port: port).get()
            let timeout = channel.eventLoop.scheduleTask(in: .seconds(5)) { outcome.finish(nil) }
            let certificate = try? await outcome.promise.futureResult.get()
            timeout.cancel()
            try? await channel.close()
            return certificate
        } catch {
            outcome.finish(nil)
            return nil
        }
    }

    /// A promise fulfilled once, whichever of the handshake, the connection's end or the
    /// timeout comes first.
    private final class Outcome: Sendable {
        let promise: EventLoopPromise<NIOSSLCertificate?>
        private let fulfilled = NIOLockedValueBox(false)

        init(_ promise: EventLoopPromise<NIOSSLCertificate?>) { self.promise = promise }

        func finish(_ certificate: NIOSSLCertificate?) {
            let first = fulfilled.withLockedValue { done in
                defer { done = true }
                return !done
            }
            if first { promise.succeed(certificate) }
        }
    }

    /// Reports the peer's certificate once the handshake completes (or `nil` when the
    /// connection ends or fails first).
    private final class HandshakeWatcher: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        let outcome: Outcome

        init(outcome: Outcome) { self.outcome = outcome }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case TLSUserEvent.handshakeCompleted = event {
                outcome.finish((try? context.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self))?.peerCertificate)
            }
            context.fireUserInboundEventTriggered(event)
        }

        func channelInactive(context: ChannelHandlerContext) {
            outcome.finish(nil)
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            outcome.finish(nil)
            context.close(promise: nil)
        }
    }
}
