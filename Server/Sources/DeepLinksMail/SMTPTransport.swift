import Foundation
import NIOCore
import NIOExtras
import NIOPosix
import NIOSSL
import Synchronization

/// Sends mail to an SMTP server: `smtp://` upgrades with STARTTLS whenever the server offers it (and refuses
/// to send without it with `?starttls=required`), `smtps://` speaks TLS from the first byte; AUTH PLAIN or
/// LOGIN when credentials are configured, and never over a connection that is not encrypted.
///
/// One connection per message: reset mail is rare, and a fresh connection survives server restarts. Each
/// answer must come within ``commandTimeout`` and the whole message within ``messageTimeout``, so one slow
/// server holds a sender for seconds, not minutes.
///
/// Only a refusal of the recipient or of the message (5xx to `RCPT TO` or after `DATA`) is permanent: a
/// 5xx to the greeting, `MAIL FROM` or `AUTH` says the relay or its configuration is wrong, which an
/// operator fixes, so the message waits and is retried.
public struct SMTPTransport: MailTransport {
    public let settings: MailURL.SMTPSettings
    /// The name sent in EHLO.
    public let heloName: String
    /// The envelope sender (`MAIL FROM`, where bounces go, what SPF checks): the From address by default.
    public let envelopeSender: String
    /// The system's trust roots and full verification; tests trust their own certificate here.
    var tlsConfiguration: TLSConfiguration = .makeClientConfiguration()
    var commandTimeout: Duration = .seconds(15)
    var messageTimeout: Duration = .seconds(30)

    public init(settings: MailURL.SMTPSettings, heloName: String, envelopeSender: String? = nil) {
        self.settings = settings
        self.heloName = heloName
        self.envelopeSender = envelopeSender ?? "no-reply@\(heloName)"
    }

    public func deliver(_ mail: OutgoingMail, rendered: String) async throws {
        let firstError = FirstErrorRecorder()
        do {
            try await withTimeout(messageTimeout) { try await send(mail, rendered: rendered, recorder: firstError) }
        } catch let error as MailDeliveryError {
            throw error
        } catch {
            // A failed TLS handshake closes the channel: what the caller sees then is often a write on a
            // closed channel. The pipeline's first error says why.
            let reason = firstError.reason ?? Self.reason(error)
            throw MailDeliveryError("SMTP \(settings.host):\(settings.port): \(reason)")
        }
    }

    /// Whether the server delivers to an address whose local part is not ASCII (it offers SMTPUTF8): asked by
    /// connecting and greeting it (no message sent), at most once every ten minutes; nil when it cannot be
    /// reached (sign-up then does not refuse the address).
    public func supportsSMTPUTF8() async -> Bool? {
        if let known = capabilities.last.withLock({ $0 }), ContinuousClock.now - known.at < .seconds(600) {
            return known.utf8
        }
        let recorder = FirstErrorRecorder()
        let capabilities = self.capabilities
        try? await withTimeout(messageTimeout) {
            try await send(nil, rendered: "", recorder: recorder) { extensions in
                capabilities.last.withLock { $0 = (extensions.contains("SMTPUTF8"), ContinuousClock.now) }
            }
        }
        return capabilities.last.withLock { $0?.utf8 }
    }

    /// What the last greeting said, shared by copies of this transport.
    private let capabilities = Capabilities()

    private final class Capabilities: Sendable {
        let last = Mutex<(utf8: Bool, at: ContinuousClock.Instant)?>(nil)
    }

    /// Sends `mail`; or, without one, greets the server, hands its extensions to `greeted` and quits.
    private func send(
        _ mail: OutgoingMail?,
        rendered: String,
        recorder: FirstErrorRecorder,
        greeted: ((Set<String>) -> Void)? = nil
    ) async throws {
        let sslContext = try NIOSSLContext(configuration: tlsConfiguration)
        let host = settings.host
        let implicitTLS = settings.implicitTLS
        let readTimeout = TimeAmount(commandTimeout)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: host, port: settings.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if implicitTLS {
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: sslContext, serverHostname: Self.sniName(host))
                        )
                    }
                    // After the TLS handler, also when STARTTLS puts one first later.
                    try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: readTimeout))
                    try channel.pipeline.syncOperations.addHandler(recorder)
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineBasedFrameDecoder()))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        try await channel.executeThenClose { inbound, outbound in
            var lines = inbound.makeAsyncIterator()
            var encrypted = implicitTLS

            func reply(expect: ClosedRange<Int>, after command: String, perRecipient: Bool = false) async throws
                -> [String]
            {
                var text: [String] = []
                while true {
                    guard let buffer = try await lines.next() else {
                        throw MailDeliveryError(
                            "SMTP \(host): \(recorder.reason ?? "the server closed the connection") after \(command)"
                        )
                    }
                    let line = String(buffer: buffer).trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
                    text.append(line)
                    let bytes = Array(line.utf8)
                    if bytes.count < 4 || bytes[3] != UInt8(ascii: "-") { break }
                }
                guard let last = text.last, let code = Int(last.prefix(3)) else {
                    throw MailDeliveryError("SMTP \(host): an unreadable answer to \(command)")
                }
                guard expect.contains(code) else {
                    let summary = String(last.prefix(200))
                    throw MailDeliveryError(
                        "SMTP \(host) refused \(command): \(summary)",
                        permanent: perRecipient && code >= 500
                    )
                }
                return text
            }
            func command(_ line: String, expect: ClosedRange<Int>, name: String? = nil, perRecipient: Bool = false)
                async throws -> [String]
            {
                try await outbound.write(ByteBuffer(string: line + "\r\n"))
                return try await reply(
                    expect: expect,
                    after: name ?? String(line.prefix(while: { $0 != " " && $0 != ":" })),
                    perRecipient: perRecipient
                )
            }

            _ = try await reply(expect: 220...220, after: "connecting")
            var extensions = try await command("EHLO \(heloName)", expect: 250...250).dropFirst().map {
                $0.dropFirst(4).uppercased()
            }
            if !encrypted, extensions.contains("STARTTLS") {
                _ = try await command("STARTTLS", expect: 220...220)
                // Made on the channel's event loop: the TLS handler is not Sendable.
                try await channel.channel.eventLoop.submit {
                    try channel.channel.pipeline.syncOperations.addHandler(
                        NIOSSLClientHandler(context: sslContext, serverHostname: Self.sniName(host)),
                        position: .first
                    )
                }.get()
                encrypted = true
                extensions = try await command("EHLO \(heloName)", expect: 250...250).dropFirst().map {
                    $0.dropFirst(4).uppercased()
                }
            }
            if settings.requireTLS, !encrypted {
                throw MailDeliveryError(
                    "SMTP \(host): the server offers no STARTTLS and the mail URL requires it (starttls=required)"
                )
            }
            guard let mail else {
                greeted?(Set(extensions))
                _ = try? await command("QUIT", expect: 221...221)
                return
            }
            if let username = settings.username {
                guard encrypted else {
                    throw MailDeliveryError(
                        "SMTP \(host): the server offers no TLS; credentials are never sent in the clear"
                    )
                }
                let password = settings.password ?? ""
                let methods = extensions.first { $0.hasPrefix("AUTH") }?.split(separator: " ").dropFirst() ?? []
                if methods.contains("PLAIN") || !methods.contains("LOGIN") {
                    let token = Data("\0\(username)\0\(password)".utf8).base64EncodedString()
                    _ = try await command("AUTH PLAIN \(token)", expect: 235...235, name: "AUTH PLAIN")
                } else {
                    _ = try await command("AUTH LOGIN", expect: 334...334)
                    _ = try await command(
                        Data(username.utf8).base64EncodedString(),
                        expect: 334...334,
                        name: "AUTH LOGIN user"
                    )
                    _ = try await command(
                        Data(password.utf8).base64EncodedString(),
                        expect: 235...235,
                        name: "AUTH LOGIN password"
                    )
                }
            }
            // The domain goes as IDNA: only a non-ASCII local part needs the server's SMTPUTF8.
            let recipient = IDNA.address(OutgoingMail.headerValue(mail.to))
            let utf8 = !recipient.allSatisfy(\.isASCII)
            if utf8, !extensions.contains("SMTPUTF8") {
                throw MailDeliveryError(
                    "SMTP \(host): the recipient's local part is not ASCII and the server lacks SMTPUTF8",
                    permanent: true
                )
            }
            let sender = envelopeSender
            _ = try await command(
                "MAIL FROM:<\(sender)>" + (utf8 ? " SMTPUTF8" : ""),
                expect: 250...250,
                name: "MAIL FROM"
            )
            _ = try await command(
                "RCPT TO:<\(recipient)>",
                expect: 250...251,
                name: "RCPT TO",
                perRecipient: true
            )
            _ = try await command("DATA", expect: 354...354)
            // Dot-stuffing (RFC 5321 §4.5.2): a line starting with "." gets another.
            let stuffed = rendered.components(separatedBy: "\r\n").map { $0.hasPrefix(".") ? "." + $0 : $0 }.joined(
                separator: "\r\n"
            )
            _ = try await command(stuffed + "\r\n.", expect: 250...250, name: "the message", perRecipient: true)
            _ = try? await command("QUIT", expect: 221...221)
        }
    }

    /// SNI takes a host name, never an IP address literal.
    static func sniName(_ host: String) -> String? {
        host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" } ? nil : host
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? NIOSSLError { return "TLS: \(error)" }
        if let error = error as? BoringSSLError { return "TLS: \(error)" }
        if let error = error as? NIOConnectionError, let first = error.connectionErrors.first {
            return "cannot connect: \(first.error)"
        }
        if error is CancellationError { return "timed out" }
        let text = String(describing: error)
        return text.split(whereSeparator: \.isNewline).first.map(String.init) ?? text
    }
}

/// Keeps the reason of the first error the pipeline reports, and passes everything on; closes the connection
/// when the server has not answered within the read timeout (an `IdleStateHandler` before it says so).
final class FirstErrorRecorder: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    private let first = Mutex<String?>(nil)

    var reason: String? { first.withLock { $0 } }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            first.withLock { if $0 == nil { $0 = "no answer within the command timeout" } }
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        first.withLock { if $0 == nil { $0 = SMTPTransport.reason(error) } }
        context.fireErrorCaught(error)
    }
}

/// Runs `body`, throwing `CancellationError` if it takes longer than `limit`.
func withTimeout<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw CancellationError()
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
