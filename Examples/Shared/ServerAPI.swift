import DeepLinks
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking  // URLSession on Linux, where this file is built and tested
#endif

/// The few calls the reference app makes to the swift-deeplinks server (docs/server.md).
struct ServerAPI: Sendable {
    let baseURL: URL

    /// The server the app talks to: the Info.plist's `DeepLinksAPIBaseURL` (the build setting
    /// `DEEPLINKS_API_BASE_URL` of the Xcode project's configuration), or a local `deeplinks serve` (the simulator
    /// reaches the Mac's loopback; debug builds carry the local-network exception, see the app's README).
    static var configuredBaseURL: URL {
        baseURL(infoValue: Bundle.main.object(forInfoDictionaryKey: "DeepLinksAPIBaseURL"))
    }

    /// The Info.plist value when it is an absolute http or https address; otherwise (missing, or a
    /// `$(DEEPLINKS_API_BASE_URL)` a build without the setting left unexpanded) the local server.
    static func baseURL(infoValue: Any?) -> URL {
        if let text = infoValue as? String, let url = URL(string: text), ["http", "https"].contains(url.scheme),
            url.host != nil
        {
            return url
        }
        return URL(string: "http://localhost:8080")!
    }

    enum Failure: Error {
        /// 400/422: the server's reason (a password too weak, say).
        case rejected(String)
        /// 410 or any other status: the link is no longer valid.
        case invalid(status: Int)
    }

    func signIn(email: String, password: String) async throws -> String {
        let body = try await post("/v1/sessions", ["email": email, "password": password])
        return body["token"] as? String ?? ""
    }

    /// The masked address the link is for, when the link is still valid.
    func verifyReset(token: String, email: String?) async throws -> String {
        let body = try await post(
            "/v1/password-resets/verify",
            ["token": token, "email": email].compactMapValues { $0 }
        )
        return body["email"] as? String ?? ""
    }

    func confirmReset(token: String, email: String?, password: String) async throws {
        _ = try await post(
            "/v1/password-resets/confirm",
            ["token": token, "email": email, "password": password].compactMapValues { $0 }
        )
    }

    /// The link a deferred token stands for, once (the token is used up).
    func redeem(_ link: DeferredLink) async throws -> String {
        let body = try await post(
            DeferredLink.redeemPath,
            ["token": link.token],
            on: URL(string: "https://\(link.host)")!
        )
        return body["url"] as? String ?? ""
    }

    private func post(_ path: String, _ fields: [String: String], on base: URL? = nil) async throws -> [String: Any] {
        var request = URLRequest(url: (base ?? baseURL).appendingPathComponent(path))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: fields)
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let body = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        switch status {
        case 200..<300: return body
        case 400, 422: throw Failure.rejected(body["reason"] as? String ?? body["error"] as? String ?? "")
        default: throw Failure.invalid(status: status)
        }
    }
}
