import AppSiteAssociation
import AsyncHTTPClient
import DeepLinks
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// Fetches a site's apple-app-site-association file by the hosting rules H1–H12 (AppSiteAssociation's article "How iOS reads an association file") (https, no
/// redirect followed, at most 128 KB, `application/json`), reports what iOS would refuse, then validates it.
package struct AASAFetcher: Sendable {
    package struct Report: Sendable {
        /// The URL the file was read from.
        package var url: String
        /// Hosting findings (codes `HOSTING_*`) followed by the validator's.
        package var diagnostics: [AASADiagnostic]
        /// The file's bytes, when it was read.
        package var body: Data? = nil
        /// Apple's CDN says why it holds no file (`Apple-Failure-Reason`, with `Apple-Failure-Details`).
        package var appleFailure: String? = nil
    }

    /// The file cannot be fetched at all (no connection, no answer). One line, for a person.
    package struct FetchError: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    package var allowHTTP: Bool
    package var timeout: TimeAmount
    /// A PEM file of certificates to trust instead of the system's (a test server's own).
    package var caFile: String?

    package init(allowHTTP: Bool = false, timeoutSeconds: Int64 = 10, caFile: String? = nil) {
        self.allowHTTP = allowHTTP
        self.timeout = .seconds(timeoutSeconds)
        self.caFile = caFile
    }

    /// `target` is a site (`example.com`, `https://example.com`) or the file's own URL (one whose path ends in
    /// `apple-app-site-association`, or any URL with `asFile`: Apple's CDN serves a domain's file at
    /// `/a/v1/DOMAIN`).
    package func fetch(_ target: String, asFile: Bool = false) async throws(FetchError) -> Report {
        var text = target.contains("://") ? target : "https://" + target
        let parts: URLParts
        do {
            parts = try URLParts(parsing: text, limits: URLLimits(allowsPort: true))
        } catch {
            throw FetchError(description: "'\(target)' is not a site or a URL: \(error.reason)")
        }
        let scheme = parts.scheme
        guard let host = parts.host, !host.isEmpty else {
            throw FetchError(description: "'\(target)' is not a site or a URL")
        }
        if scheme != "https" {
            guard scheme == "http", allowHTTP else {
                throw FetchError(
                    description:
                        "'\(target)': iOS fetches the file over https only (use --allow-http for a loopback test server)"
                )
            }
        }
        let path = parts.path
        let candidates: [String]
        if asFile || path.hasSuffix("apple-app-site-association") {
            candidates = [text]
        } else {
            text = "\(scheme)://\(host)\(parts.port.map { ":\($0)" } ?? "")"
            candidates = [text + "/.well-known/apple-app-site-association", text + "/apple-app-site-association"]
        }

        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile { tls.trustRoots = .file(caFile) }
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(
                tlsConfiguration: tls,
                redirectConfiguration: .disallow,
                timeout: .init(connect: timeout, read: timeout)
            )
        )
        let result: Result<Report, FetchError>
        do {
            result = .success(try await fetch(candidates, with: client))
        } catch {
            result = .failure(error)
        }
        try? await client.shutdown()
        return try result.get()
    }

    private func fetch(_ candidates: [String], with client: HTTPClient) async throws(FetchError) -> Report {
        var hosting: [AASADiagnostic] = []
        for (index, url) in candidates.enumerated() {
            let response: HTTPClientResponse
            do {
                var request = HTTPClientRequest(url: url)
                request.headers.add(name: "User-Agent", value: "deeplinks-aasa-fetch")
                response = try await client.execute(request, timeout: timeout)
            } catch {
                throw FetchError(description: "cannot fetch \(url): \(error)")
            }
            let status = Int(response.status.code)
            if (300..<400).contains(status) {
                let location = response.headers.first(name: "Location") ?? "(no Location)"
                hosting.append(
                    .init(
                        .hostingRedirect,
                        .error,
                        "",
                        "\(url) answers \(status) to \(location): iOS follows no redirect, serve the file itself"
                    )
                )
                return Report(url: url, diagnostics: hosting)
            }
            guard status == 200 else {
                if status == 404, index + 1 < candidates.count { continue }
                hosting.append(.init(.hostingStatus, .error, "", "\(url) answers \(status), not 200"))
                let failure = response.headers.first(name: "Apple-Failure-Reason").map { reason in
                    reason + (response.headers.first(name: "Apple-Failure-Details").map { " (\($0))" } ?? "")
                }
                return Report(url: url, diagnostics: hosting, appleFailure: failure)
            }
            if index > 0 {
                hosting.append(
                    .init(
                        .hostingRootOnly,
                        .warning,
                        "",
                        "only the root path serves the file; current systems read /.well-known/apple-app-site-association"
                    )
                )
            }
            let contentType = response.headers.first(name: "Content-Type") ?? "(none)"
            if !contentType.lowercased().hasPrefix("application/json") {
                hosting.append(
                    .init(.hostingContentType, .warning, "", "Content-Type is \(contentType); serve application/json")
                )
            }
            let body: ByteBuffer
            do {
                body = try await response.body.collect(upTo: AASAValidator.maximumSize + 1)
            } catch is NIOTooManyBytesError {
                hosting.append(
                    .init(.tooLarge, .error, "", "the file is larger than 128 KB (131,072 bytes): iOS does not read it")
                )
                return Report(url: url, diagnostics: hosting)
            } catch {
                throw FetchError(description: "cannot read \(url): \(error)")
            }
            let data = Data(body.readableBytesView)
            return Report(url: url, diagnostics: hosting + AASAValidator.validate(data: data), body: data)
        }
        throw FetchError(description: "no file found at \(candidates.joined(separator: " or "))")
    }
}

/// The hosting checks of `deeplinks aasa fetch`, beside the document validator's codes.
extension AASADiagnostic.Code {
    static let hostingRedirect = Self(rawValue: "HOSTING_REDIRECT")
    static let hostingStatus = Self(rawValue: "HOSTING_STATUS")
    static let hostingRootOnly = Self(rawValue: "HOSTING_ROOT_ONLY")
    static let hostingContentType = Self(rawValue: "HOSTING_CONTENT_TYPE")
}
