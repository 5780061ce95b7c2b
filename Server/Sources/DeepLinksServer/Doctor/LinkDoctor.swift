import AppSiteAssociation
import DeepLinks
import DeepLinksJSON
import DeepLinksStorage
import Foundation

/// Why a link opens the app or Safari, checked in the order iOS meets it (`deeplinks doctor`, and the console's
/// page): a mail scanner's rewrite, the domain's file as iOS fetches it and Apple's CDN copy (what devices read),
/// the matcher on that copy, the app's route (or, on a short-link domain, the link the code names), and where the
/// tap happened. It fetches files of the configured apps' domains and short-link domains only.
package struct LinkDoctor: Sendable {
    let settings: ServerSettings
    let fetcher: AASAFetcher
    let origin: String?
    let cdnURL: String?
    let shortLinks: (@Sendable (String) async throws -> SmartLink?)?
    /// Where the universal-link health counts are, to name the domain's week (nil: not read).
    let health: Database?

    /// Apple's CDN: a domain's file at this prefix followed by the domain.
    package static let appleCDN = "https://app-site-association.cdn-apple.com/a/v1/"

    /// - Parameters:
    ///   - origin: fetch the domain's file from this origin instead (a staging server, a test server).
    ///   - cdnURL: where the CDN serves a domain's file (the domain is appended); nil: do not ask it.
    ///   - shortLinks: the link stored under a code (nil when none), to check a short link's code; nil: not checked.
    ///   - health: the database whose universal-link health counts the report names for the URL's domain.
    package init(
        settings: ServerSettings,
        fetcher: AASAFetcher,
        origin: String? = nil,
        cdnURL: String? = appleCDN,
        shortLinks: (@Sendable (String) async throws -> SmartLink?)? = nil,
        health: Database? = nil
    ) {
        self.health = health
        self.settings = settings
        self.fetcher = fetcher
        self.origin = origin
        self.cdnURL = cdnURL
        self.shortLinks = shortLinks
    }

    package struct Report: Sendable {
        package var url: String
        package var findings: [Finding] = []
        package var notes: [String] = []
        package var trace: [String] = []
        package var route: String?
        /// The URL could not be read at all.
        package var unreadable = false

        package var opensApp: Bool { findings.isEmpty && !unreadable }

        package var lines: [String] {
            var lines = ["\(url)"] + notes.map { "  \($0)" }
            if !trace.isEmpty { lines += ["  matcher:"] + trace.map { "    \($0)" } }
            if let route { lines.append("  route: \(route)") }
            lines.append(opensApp ? "opens the app" : "opens Safari, because:")
            lines += findings.map { "  \($0)" }
            return lines
        }

        package var json: [String: Any] {
            [
                "url": url, "opensApp": opensApp, "trace": trace, "route": route ?? NSNull(), "notes": notes,
                "findings": findings.map { ["code": $0.code ?? $0.severity.rawValue, "message": $0.message] },
            ]
        }
    }

    package func examine(_ given: String, referrer: String?, userAgent: String?) async -> Report {
        var report = Report(url: given)
        var text = given
        if let (original, scanner) = Self.unwrapScanner(given) {
            report.findings.append(
                Finding(
                    code: "MAIL_SCANNER_REWRITE",
                    message:
                        "\(scanner) rewrote the link: iOS opens the scanner's domain, which is not the app's, in Safari (the original is \(original))"
                )
            )
            text = original
            report.url = original
        }
        guard let url = try? LinkURL(parsing: text) else {
            report.unreadable = true
            report.findings.append(Finding(code: "NOT_A_LINK", message: "the URL is refused by the URL policy"))
            return report
        }
        guard url.isWebURL, url.scheme == "https", let host = url.host else {
            report.findings.append(
                Finding(
                    code: "NOT_A_UNIVERSAL_LINK",
                    message:
                        "only https links are universal links; a custom-scheme link opens whichever app claims the scheme"
                )
            )
            return report
        }
        let apps = settings.app.apps
        let shortLinkHost = settings.smartLinks.shortLinkHosts(apart: apps).contains(host)
        guard let app = shortLinkHost ? apps.first : apps.first(where: { $0.domains.contains(host) }) else {
            report.findings.append(
                Finding(
                    code: "DOMAIN_NOT_CONFIGURED",
                    message:
                        "\(host) is not a domain of a configured app or a short-link domain: the app's entitlement must list applinks:\(host)"
                )
            )
            return report
        }
        report.notes.append("app \(app.appID)" + (shortLinkHost ? " (\(host) is a short-link domain)" : ""))
        if let health,
            let note = await UniversalLinkHealth.note(
                domain: host,
                database: health,
                now: Int64(Date().timeIntervalSince1970 * 1000)
            )
        {
            report.notes.append(note)
        }

        // What the origin serves, and what Apple's CDN serves (which is what devices read), asked at once: an
        // unreachable host costs one timeout, not two.
        async let servedFetch = fetch(origin ?? "https://\(host)")
        async let copyFetch = cdnCopy(host)
        let served = await servedFetch
        var governing = served.document
        switch served.outcome {
        case .unreachable(let reason):
            report.findings.append(Finding(code: "FILE_UNREACHABLE", message: reason))
        case .refused(let problems):
            report.findings.append(
                Finding(
                    code: "FILE_NOT_READ",
                    message: "iOS does not read the file: " + problems.joined(separator: "; ")
                )
            )
        case .read(let url, let warnings):
            report.notes.append(
                "the file at \(url) is served well" + (warnings.isEmpty ? "" : " (\(warnings.joined(separator: "; ")))")
            )
        }
        if let copy = await copyFetch {
            switch copy.outcome {
            case .read:
                if let document = copy.document, let origin = served.document, document != origin {
                    report.findings.append(
                        Finding(
                            code: "CDN_STALE",
                            message:
                                "Apple's CDN holds another copy of the file than the one served: devices read the CDN's, which follows within hours to a day (during development, applinks:\(host)?mode=developer reads the server)"
                        )
                    )
                }
                governing = copy.document ?? governing
            case .unreachable(let reason):
                report.notes.append("Apple's CDN could not be asked (\(reason)): the served file is judged instead")
            case .refused(let problems):
                report.findings.append(
                    Finding(
                        code: "CDN_HAS_NO_FILE",
                        message: "Apple's CDN holds no usable copy, so devices find no file: "
                            + problems.joined(separator: "; ")
                    )
                )
                governing = nil
            }
        }

        if let governing {
            let decision = AASAMatcher(document: governing).decide(appID: app.appID, url: url.string, domain: host)
            report.trace = decision.trace
            if decision.verdict != .match {
                report.findings.append(
                    Finding(
                        code: decision.verdict == .exclude ? "PATH_EXCLUDED" : "PATH_NOT_CLAIMED",
                        message:
                            "the file \(decision.verdict == .exclude ? "excludes" : "does not claim") this URL for \(app.appID)"
                    )
                )
            }
        }
        if shortLinkHost {
            await examineShortLink(url, into: &report)
        } else if let table = try? app.routeTable() {
            switch table.match(url) {
            case .success(let match): report.route = "\(match.routeName) \(table.redact(url.string))"
            case .failure(let rejection):
                report.findings.append(
                    Finding(
                        code: "NO_ROUTE",
                        message: "the app opens, but its manifest has no screen for it: \(rejection)"
                    )
                )
            }
        }

        // Where the tap happened.
        if let referrer, let page = try? LinkURL(parsing: referrer), page.host == host {
            report.findings.append(
                Finding(
                    code: "SAME_DOMAIN_TAP",
                    message:
                        "the link was tapped on a page of \(host) itself: iOS keeps a tap within a domain in Safari (link from another domain, or use a landing domain)"
                )
            )
        }
        if let browser = InAppBrowser(userAgent: userAgent) {
            report.findings.append(
                Finding(
                    code: "IN_APP_BROWSER",
                    message:
                        "\(browser.rawValue)'s own browser shows links itself and does not hand universal links to apps"
                )
            )
        }
        if report.findings.isEmpty {
            report.notes.append(
                "if it still opens Safari on a device: the user may have chosen Safari for this domain (a long press on the link, then Open in the app, undoes it)"
            )
        }
        return report
    }

    /// A short link opens the app with its own URL; the app asks the server for the link its code names.
    private func examineShortLink(_ url: LinkURL, into report: inout Report) async {
        guard url.pathSegments.count == 1, let code = url.pathSegments.first, !code.isEmpty else {
            report.findings.append(
                Finding(
                    code: "NO_SUCH_LINK",
                    message: "the app opens, but a short link's path is its code alone: this one names no link"
                )
            )
            return
        }
        guard let shortLinks else {
            report.notes.append("the app asks the server for the link of code \(code) (not looked up here)")
            return
        }
        do {
            if let link = try await shortLinks(code) {
                let target = link.route ?? link.destinations.fallback.map { "web link to \($0)" } ?? "its rules only"
                report.route = "short link \(code) → \(target)"
                if let rules = link.rules {
                    report.notes.append(
                        "\(rules.count) rule(s) decide first, in order (\(rules.map(\.name).joined(separator: ", "))): ?d=1 on the short link shows the one each visitor reaches"
                    )
                }
            } else {
                report.findings.append(
                    Finding(
                        code: "NO_SUCH_LINK",
                        message:
                            "the app opens, but no short link has the code \(code): it finds nothing to show (the server answers 404)"
                    )
                )
            }
        } catch {
            // Not the error's text: a database's may name its address.
            report.notes.append("the link of code \(code) could not be read: the database did not answer")
        }
    }

    enum Outcome: Sendable {
        case read(url: String, warnings: [String])
        case refused([String])
        case unreachable(String)
    }

    /// Apple's CDN copy of `host`'s file, when a CDN is set.
    private func cdnCopy(_ host: String) async -> (outcome: Outcome, document: JSONValue?)? {
        guard let cdnURL else { return nil }
        return await fetch(cdnURL + host, asFile: true)
    }

    func fetch(_ target: String, asFile: Bool = false) async -> (outcome: Outcome, document: JSONValue?) {
        do {
            let fetched = try await fetcher.fetch(target, asFile: asFile)
            let errors = fetched.diagnostics.filter { $0.severity == .error }.map(\.message)
            let warnings = fetched.diagnostics.filter { $0.severity == .warning }.map(\.message)
            let document = fetched.body.flatMap { try? JSONValue.parse($0) }
            var refused = errors
            if let failure = fetched.appleFailure { refused.append("Apple-Failure-Reason: \(failure)") }
            return refused.isEmpty ? (.read(url: fetched.url, warnings: warnings), document) : (.refused(refused), nil)
        } catch {
            return (.unreachable(error.description), nil)
        }
    }

    /// The link a mail scanner wrapped: Microsoft Defender's Safe Links (`url=`), Proofpoint's URL Defense (v2 `u=`,
    /// v3 `__URL__`), Mimecast's is opaque and stays.
    package static func unwrapScanner(_ text: String) -> (original: String, scanner: String)? {
        guard let url = try? LinkURL(parsing: text, limits: URLLimits(maxURLLength: 8192)), let host = url.host
        else { return nil }
        // The URL policy's own decoder: each value percent-decoded once.
        func item(_ name: String) -> String? { url.values(of: name).first ?? nil }
        if host.hasSuffix("safelinks.protection.outlook.com"), let original = item("url") {
            return (original, "Microsoft Defender Safe Links")
        }
        if host == "urldefense.proofpoint.com", let encoded = item("u") {
            // v2: '-' for '%', '_' for '/'.
            let original = encoded.replacingOccurrences(of: "_", with: "/").replacingOccurrences(of: "-", with: "%")
            return ((try? PercentEncoding.decode(original)) ?? original, "Proofpoint URL Defense")
        }
        if host == "urldefense.com", let start = text.range(of: "/v3/__"),
            let end = text.range(of: "__;", range: start.upperBound..<text.endIndex)
        {
            return (String(text[start.upperBound..<end.lowerBound]), "Proofpoint URL Defense")
        }
        return nil
    }
}
