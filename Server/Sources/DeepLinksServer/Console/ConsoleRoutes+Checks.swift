import AppSiteAssociation
import Crypto
import DeepLinks
import DeepLinksQR
import DeepLinksSupport
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The association files and URLs checked against them, and the link doctor.
extension ConsoleRoutes {
    /// The association files as the console shows them, and the link doctor.
    func registerChecks(on router: Router<AppRequestContext>) {
        group(router, .viewer)
            .get("/console/association", use: associationPage)
            .get("/console/doctor", use: doctorPage)
    }

    @Sendable func associationPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.viewer()
        return ConsolePages.response(.ok, association(request, viewer: viewer))
    }

    /// The doctor fetches files of the configured apps' and short-link domains only (never a host a form names).
    @Sendable func doctorPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.viewer()
        let query = request.uri.queryParameters
        func field(_ name: String) -> String {
            String((query[Substring(name)] ?? "").prefix(8192)).trimmingCharacters(in: .whitespaces)
        }
        let (url, referrer, agent) = (field("url"), field("referrer"), field("userAgent"))
        // Each diagnosis fetches up to three files: throttled per operator, as imports are.
        if !url.isEmpty,
            let wait = try await costlyLimiter.take("\(viewer.signedIn.id)", now: clock.milliseconds())
        {
            return ConsolePages.response(
                .tooManyRequests,
                ConsolePages.doctor(
                    url: url,
                    referrer: referrer,
                    userAgent: agent,
                    report: nil,
                    problem: "Too many diagnoses and imports: try again in \(wait) seconds.",
                    viewer: viewer
                ),
                headers: [.retryAfter: String(wait)]
            )
        }
        let report =
            url.isEmpty
            ? nil
            : await doctor.examine(
                url,
                referrer: referrer.isEmpty ? nil : referrer,
                userAgent: agent.isEmpty ? nil : agent
            )
        return ConsolePages.response(
            .ok,
            ConsolePages.doctor(url: url, referrer: referrer, userAgent: agent, report: report, viewer: viewer)
        )
    }

    func association(_ request: Request, viewer: ConsolePages.Viewer) -> HTML {
        func pretty(_ data: Data) -> String {
            guard let object = try? JSONSerialization.jsonObject(with: data),
                let text = try? JSONSerialization.data(
                    withJSONObject: object,
                    options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                )
            else { return String(decoding: data, as: UTF8.self) }
            return String(decoding: text, as: UTF8.self)
        }
        var served: [(name: String, path: String, body: String, diagnostics: [AASADiagnostic])] = [
            (
                "apple-app-site-association", "/.well-known/apple-app-site-association",
                pretty(files.appleAppSiteAssociation.body),
                AASAValidator.validate(data: files.appleAppSiteAssociation.body)
            )
        ]
        if let link = files.linkDomainAssociation {
            served.append(
                (
                    "apple-app-site-association of \(link.hosts.joined(separator: ", "))",
                    "/.well-known/apple-app-site-association",
                    pretty(link.file.body), AASAValidator.validate(data: link.file.body)
                )
            )
        }
        if let assetLinks = files.assetLinks {
            served.append(
                (
                    "assetlinks.json", "/.well-known/assetlinks.json", pretty(assetLinks.body),
                    AssetLinksValidator.validate(data: assetLinks.body)
                )
            )
        }
        let url = String((request.uri.queryParameters["url"] ?? "").prefix(4096)).trimmingCharacters(in: .whitespaces)
        var verdicts: [ConsolePages.Verdict] = []
        var problem: String?
        if !url.isEmpty {
            do {
                let parts = try URLParts(parsing: url, limits: SmartLinkValidator.destinationLimits)
                guard parts.scheme == "https" else { throw URLRejection(reason: "iOS opens apps for https URLs only") }
                for app in policy.apps {
                    var route: String?
                    var parameters: [(String, String)] = []
                    var routeProblem: String?
                    if let table = policy.validator.manifests[app.bundleID]?.table {
                        switch table.match(url) {
                        case .success(let match):
                            route = match.destination.route
                            parameters = match.parameters.values.sorted { $0.key < $1.key }.flatMap { name, values in
                                values.map { (name, $0) }
                            }
                        case .failure(let rejection):
                            routeProblem = "\(rejection)"
                        }
                    }
                    verdicts.append(
                        .init(
                            app: app,
                            decision: policy.opens(app, url),
                            route: route,
                            parameters: parameters,
                            routeProblem: routeProblem
                        )
                    )
                }
            } catch let error as URLRejection {
                problem = "Not a URL iOS would open: \(error.reason)"
            } catch {
                problem = "Not a URL iOS would open: \(error)"
            }
        }
        return ConsolePages.association(
            files: served,
            url: url,
            verdicts: verdicts,
            urlProblem: problem,
            viewer: viewer
        )
    }

    private struct URLRejection: Error {
        let reason: String
    }
}
