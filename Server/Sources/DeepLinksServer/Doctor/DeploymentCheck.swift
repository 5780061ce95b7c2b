import AppSiteAssociation
import DeepLinks
import DeepLinksStorage
import Foundation

/// `deeplinks check`: what would make a link fail in production, found before it ships.
///
/// - every universal-link route of each app's manifest is claimed for that app by the association file the
///   server generates (checked with the matcher, as iOS would);
/// - the landing domain is not the link domain (a same-domain tap never opens the app);
/// - every stored link routes to a screen of the app, through the association file, with allowed destinations.
package enum DeploymentCheck {
    /// One line per problem; empty when all is well.
    package static func problems(settings: ServerSettings, links: [SmartLink]) throws -> [String] {
        var problems: [String] = []
        let files = try AssociationFiles(app: settings.app, links: settings.smartLinks)
        let routes = try LinkPolicy(settings: settings.smartLinks, app: settings.app, association: files)
        let named = routes.apps.count > 1
        for app in routes.apps {
            let label = named ? "\(app.bundleID): " : ""
            guard let manifest = app.routes else {
                problems.append(
                    "\(label)the configuration names no route manifest: the association file claims every path, and links cannot be checked against the app's screens"
                )
                continue
            }
            for entry in manifest.routes where entry.sources.contains("universalLink") {
                for domain in app.domains {
                    let url = "https://\(domain)\(sample(entry.pattern))"
                    let decision = routes.opens(app, url)
                    if decision.verdict != .match {
                        problems.append(
                            "\(label)route '\(entry.name)' (\(entry.pattern)): iOS would not open the app for \(url): \(decision.trace.last ?? decision.verdict.rawValue)"
                        )
                    }
                }
            }
        }
        if let landing = settings.smartLinks.landingDomain, landing == routes.linkDomain {
            problems.append(
                "the landing domain is the link domain (\(landing)): a tap on the landing page stays on one domain and opens Safari, not the app"
            )
        } else if settings.smartLinks.landingDomain == nil {
            problems.append(
                "no landing domain: landing pages are served on the link domain \(routes.linkDomain), where \"Open in the app\" is a same-domain tap (set --landing-domain)"
            )
        }
        for link in links {
            for problem in routes.validator.problems(link) {
                problems.append("link '\(link.code)': \(problem)")
            }
            let target = routes.appURL(link)
            if routes.opens(routes.app(for: link), target).verdict != .match {
                problems.append("link '\(link.code)': iOS would not open the app for \(target)")
            }
        }
        return problems
    }

    /// A URL path the pattern matches: a value for each parameter, two segments for a catch-all.
    static func sample(_ pattern: String) -> String {
        "/"
            + RoutePattern(pattern).segments.map { segment in
                switch segment {
                case .literal(let text): PercentEncoding.encode(text)
                case .parameter: "1"
                case .catchAll: "a/b"
                }
            }.joined(separator: "/")
    }

    /// Every stored link, for the check.
    package static func storedLinks(in database: Database) async throws -> [SmartLink] {
        let store = LinkStore(database: database, clock: .system)
        var links: [SmartLink] = []
        while true {
            let page = try await store.list(after: links.last?.code, limit: 200)
            links += page
            if page.count < 200 { return links }
        }
    }
}

/// The short links a message holds, judged by what they lead to (`deeplinks check --mail`).
package struct ShortLinkJudge: Sendable {
    let policy: LinkPolicy
    let hosts: Set<String>

    package init(settings: ServerSettings) throws {
        let files = try AssociationFiles(app: settings.app, links: settings.smartLinks)
        policy = try LinkPolicy(settings: settings.smartLinks, app: settings.app, association: files)
        hosts = Set(([policy.linkDomain] + settings.smartLinks.otherLinkDomains).map { $0.lowercased() })
    }

    /// The code of `url` when it is one of this server's short links: one path segment on the link domain (or an
    /// earlier one) that could be a code and is none of the app's paths nor the reset page's; nil otherwise.
    package func code(of url: String) -> String? {
        guard let parsed = try? LinkURL(parsing: url), let host = parsed.host, hosts.contains(host),
            parsed.pathSegments.count == 1
        else { return nil }
        let code = parsed.pathSegments[0]
        guard SmartLinkValidator.isCode(code), code.lowercased() != policy.validator.resetCode,
            policy.validator.appRouting("/\(code)") == nil
        else { return nil }
        return code
    }

    /// What `link` would be refused for (`problems`, as the API judges a link) and warned about (`warnings`:
    /// parameters Link Tracking Protection removes, a rule's store that Android visitors reach), and its short URL.
    package func judge(_ link: SmartLink) -> (problems: [String], warnings: [String], shortURL: String) {
        (
            policy.validator.problems(link), LinkTrackingProtection.warnings(link) + policy.warnings(link),
            policy.shortURL(link.code)
        )
    }
}
