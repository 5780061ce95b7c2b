import AsyncHTTPClient
import Crypto
import DeepLinks
import DeepLinksJSON
import DeepLinksSecrets
import DeepLinksSupport
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// The client of the backend's hooks: signed requests, a timeout, no redirects, and failures that never
/// carry a password or a response body.
struct AccountsBackend: Sendable {
    let accounts: ExternalAccounts
    /// The hook secrets: every request is signed under each (newest first), so a backend can rotate.
    let secrets: SecretKeys

    /// The header that carries the signatures: `t=UNIX-SECONDS,n=NONCE,v2=HEX[,v2=HEX...]`, each `v2` an
    /// HMAC-SHA-256 of `"{t}.{n}.{purpose}.{body}"` under one hook secret (``signature(_:at:nonce:purpose:secrets:)``). `t` is the real time (not the clock tests
    /// move) and `n` is fresh for every request: the backend refuses a `t` far from its own clock and a `n`
    /// it has seen before (a replay), while two calls with the same body stay two calls.
    static let signatureHeader = "Deeplinks-Signature"

    /// A hook call that did not give an answer the server can act on: retried later, never shown as a reason.
    struct Unavailable: Error, CustomStringConvertible {
        let hook: String
        let reason: String
        var description: String { "the backend's \(hook) hook \(reason)" }
    }

    /// What the password hook answered.
    enum PasswordAnswer: Equatable {
        case changed
        /// 422 with the backend's reasons (`too_short`, ...).
        case refused([String])
    }

    /// The subject of the account that uses `email`, nil when the backend has none (404).
    func lookup(email: String) async throws(Unavailable) -> String? {
        let (status, body) = try await call("lookup", ["email": .string(email)])
        switch status {
        case 200:
            guard case .object(let object)? = try? JSONValue.parse(Data(body)),
                let subject = object["subject"]?.string, ExternalAccounts.isSubject(subject)
            else { throw Unavailable(hook: "lookup", reason: "answered 200 without a valid \"subject\"") }
            return subject
        case 404: return nil
        default: throw Unavailable(hook: "lookup", reason: "answered \(status)")
        }
    }

    /// Asks the backend to set `password` for `subject` and to end the subject's sessions.
    func setPassword(subject: String, password: String) async throws(Unavailable) -> PasswordAnswer {
        let (status, body) = try await call(
            "password",
            ["subject": .string(subject), "password": .string(password), "endSessions": .bool(true)]
        )
        switch status {
        case 200..<300: return .changed
        case 422:
            let object = (try? JSONValue.parse(Data(body)))?.object
            return .refused(object?["reasons"]?.array?.compactMap(\.string) ?? [])
        default: throw Unavailable(hook: "password", reason: "answered \(status)")
        }
    }

    /// The signature header's value for `body` sent at `seconds` for `purpose`: `hook:NAME` for the account hook
    /// `/deeplinks/NAME`, `webhook` for a webhook event. The purpose is signed, so a signature made for one cannot be
    /// replayed to another (a webhook receiver holds webhook signatures, never a hook's).
    static func signature(_ body: [UInt8], at seconds: Int64, nonce: String, purpose: String, secrets: SecretKeys)
        -> String
    {
        let signed = Array("\(seconds).\(nonce).\(purpose).".utf8) + body
        let macs = secrets.keys.map { key in
            "v2=" + Hex.encode(HMAC<SHA256>.authenticationCode(for: signed, using: key.key))
        }
        return (["t=\(seconds)", "n=\(nonce)"] + macs).joined(separator: ",")
    }

    private static let client = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: .init(redirectConfiguration: .disallow)
    )

    private func call(_ hook: String, _ payload: [String: JSONValue]) async throws(Unavailable) -> (Int, [UInt8]) {
        let body = Array(JSONValue.object(payload).compactJSON.utf8)
        var request = HTTPClientRequest(url: "\(accounts.backend)/deeplinks/\(hook)")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "deeplinks/\(DeepLinksServerVersion.current)")
        request.headers.add(
            name: Self.signatureHeader,
            value: Self.signature(
                body,
                at: Int64(Date().timeIntervalSince1970),
                nonce: Base64URL.encode(SecureBytes.random(count: 16)),
                purpose: "hook:\(hook)",
                secrets: secrets
            )
        )
        request.body = .bytes(body)
        do {
            let timeout = TimeAmount.seconds(Int64(accounts.timeoutSeconds))
            let response = try await Self.client.execute(request, timeout: timeout)
            let answer = try await response.body.collect(upTo: 64 * 1024)
            return (Int(response.status.code), Array(buffer: answer))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw Unavailable(hook: hook, reason: "took longer than \(accounts.timeoutSeconds) s")
        } catch {
            // The error's text names the address at most, never the body (which holds the password).
            throw Unavailable(hook: hook, reason: "could not be reached (\(type(of: error)))")
        }
    }
}
