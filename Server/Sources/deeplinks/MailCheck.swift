import DeepLinks
import DeepLinksServer
import DeepLinksSupport
import Foundation

/// `deeplinks check --mail FILE.eml`: a message as it arrived (after a mail service may have rewritten its links),
/// each link judged as iOS and the mail's readers will meet it.
struct MailCheck {
    struct LinkResult {
        let url: String
        let report: LinkReport?
        var findings: [Finding]
    }

    var links: [LinkResult]

    var problems: Int { links.reduce(0) { $0 + $1.findings.filter { $0.severity == .problem }.count } }

    /// Hosts of click-tracking services, and the setting that turns their rewriting off.
    static let trackers: [(suffix: String, service: String, remedy: String)] = [
        ("sendgrid.net", "SendGrid", "X-SMTPAPI clicktrack enable 0 (the server sends it), or turn click tracking off"),
        ("mailgun.org", "Mailgun", "o:tracking-clicks: no"),
        ("pstmrk.it", "Postmark", "TrackLinks: None"),
        ("list-manage.com", "Mailchimp", "turn click tracking off for the campaign"),
        ("awstrack.me", "Amazon SES", "remove the configuration set's click tracking"),
        ("mandrillapp.com", "Mandrill", "track_clicks: false"),
        ("sparkpostmail.com", "SparkPost", "click_tracking: false"),
        ("sendibt3.com", "Brevo", "turn click tracking off"),
        (
            "safelinks.protection.outlook.com", "Microsoft Defender Safe Links",
            "ask the recipient's admin to exclude the domain"
        ),
    ]

    init(message data: Data, settings: ServerSettings) throws {
        guard let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1) else {
            throw ConfigurationError(setting: "mail", reason: "is not text")
        }
        let parts = MIMEMessage.textParts(of: text)
        guard !parts.isEmpty else {
            throw ConfigurationError(setting: "mail", reason: "has no text or HTML part: not a message")
        }
        var seen: [String] = []
        var inHTML: Set<String> = []
        for part in parts {
            let found =
                part.isHTML
                ? MIMEMessage.hrefs(in: part.body)
                : MIMEMessage.urls(in: part.body, schemes: settings.app.apps.map(\.customScheme))
            for url in found where !seen.contains(url) { seen.append(url) }
            if part.isHTML { inHTML.formUnion(found) }
        }
        links = seen.map { url in Self.judge(url, inHTML: inHTML.contains(url), settings: settings) }
    }

    static func judge(_ url: String, inHTML: Bool, settings: ServerSettings) -> LinkResult {
        var findings: [Finding] = []
        guard let parsed = try? LinkURL(parsing: url) else {
            return LinkResult(
                url: url,
                report: nil,
                findings: [Finding(severity: .problem, message: "not a well-formed URL")]
            )
        }
        let apps = settings.app.apps
        let ours = Set(
            apps.flatMap(\.domains)
                + [settings.smartLinks.linkDomain, settings.smartLinks.landingDomain].compactMap { $0 }
        )
        let host = parsed.host ?? ""
        var report: LinkReport?
        if parsed.isWebURL, !ours.contains(host) {
            if let tracker = trackers.first(where: { host == $0.suffix || host.hasSuffix("." + $0.suffix) }) {
                findings.append(
                    Finding(
                        severity: .problem,
                        message:
                            "wrapped by \(tracker.service) click tracking (\(host)): iOS opens \(host) in Safari, never the app; \(tracker.remedy)"
                    )
                )
            } else if parsed.queryItems.contains(where: { ($0.value ?? "").lowercased().hasPrefix("http") }) {
                findings.append(
                    Finding(
                        severity: .problem,
                        message:
                            "a redirect through \(host) (a URL in its query): iOS opens \(host) in Safari, never the app"
                    )
                )
            }
        } else if parsed.isWebURL || apps.contains(where: { $0.customScheme == parsed.scheme }) {
            report = try? LinkReport(url: parsed, original: url, settings: settings)
            if let report, !report.handled, let reason = report.reason {
                findings.append(Finding(severity: .problem, message: "the app does not open it: \(reason)"))
            }
        }
        if !parsed.isWebURL, inHTML {
            findings.append(
                Finding(
                    severity: .warning,
                    message:
                        "a custom-scheme link in HTML: webmail (Gmail, Outlook) strips it; give the https link first"
                )
            )
        }
        for name in LinkTrackingProtection.stripped(in: url) {
            findings.append(
                Finding(
                    severity: .warning,
                    message:
                        "Mail removes '\(name)' when the link is opened (Link Tracking Protection; \(LinkTrackingProtection.evidence(name) ?? "")): put what it carries in the path or a utm_ parameter"
                )
            )
        }
        let sensitive = Set(report?.route?.redactedParameters.filter { $0.value == ["<redacted>"] }.map(\.key) ?? [])
        for item in parsed.queryItems {
            let value = item.value ?? ""
            if value.contains("@") {
                findings.append(
                    Finding(
                        severity: .problem,
                        message:
                            "an address in the query ('\(item.name)'): scanners and proxies log it, and spam filters score it (SpamAssassin GB_CUSTOM_HTM_URI)"
                    )
                )
            } else if parsed.isWebURL, sensitive.contains(item.name) {
                findings.append(
                    Finding(
                        severity: .problem,
                        message:
                            "a secret in the query ('\(item.name)'): it reaches the server's and proxies' logs; use the fragment"
                    )
                )
            }
        }
        if parsed.fragmentItems.contains(where: { ($0.value ?? "").contains("@") }) {
            findings.append(
                Finding(
                    severity: .warning,
                    message:
                        "an address in the fragment: spam filters score an address in a link (SpamAssassin GB_CUSTOM_HTM_URI)"
                )
            )
        }
        return LinkResult(url: report?.shown ?? url, report: report, findings: findings)
    }
}

/// Enough MIME to read a message's text: headers unfolded, multipart bodies split (nested too), base64 and
/// quoted-printable decoded, UTF-8 assumed.
enum MIMEMessage {
    struct Part {
        let isHTML: Bool
        let body: String
    }

    static func textParts(of message: String) -> [Part] {
        let normalized = message.replacingOccurrences(of: "\r\n", with: "\n")
        guard let split = normalized.range(of: "\n\n") else { return [] }
        let headers = Self.headers(String(normalized[..<split.lowerBound]))
        let body = String(normalized[split.upperBound...])
        let type = headers["content-type"]?.lowercased() ?? "text/plain"
        if type.hasPrefix("multipart/") {
            guard let boundary = parameter("boundary", in: headers["content-type"] ?? "") else { return [] }
            return body.components(separatedBy: "--" + boundary).dropFirst().flatMap { chunk -> [Part] in
                chunk.hasPrefix("--") ? [] : textParts(of: String(chunk.drop { $0 == "\n" }))
            }
        }
        guard type.hasPrefix("text/plain") || type.hasPrefix("text/html") else { return [] }
        let encoding = headers["content-transfer-encoding"]?.lowercased() ?? "7bit"
        let decoded: String
        switch encoding {
        case "base64":
            decoded =
                Data(base64Encoded: body.filter { !$0.isWhitespace }).flatMap { String(data: $0, encoding: .utf8) }
                ?? ""
        case "quoted-printable": decoded = quotedPrintable(body)
        default: decoded = body
        }
        return [Part(isHTML: type.hasPrefix("text/html"), body: decoded)]
    }

    static func headers(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        var last: String?
        for line in text.components(separatedBy: "\n") {
            if let last, line.first == " " || line.first == "\t" {
                fields[last, default: ""] += " " + line.trimmingCharacters(in: .whitespaces)
            } else if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].lowercased()
                fields[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                last = name
            }
        }
        return fields
    }

    static func parameter(_ name: String, in value: String) -> String? {
        for piece in value.split(separator: ";") {
            let pair = piece.trimmingCharacters(in: .whitespaces)
            guard pair.lowercased().hasPrefix(name + "=") else { continue }
            return String(pair.dropFirst(name.count + 1)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }

    static func quotedPrintable(_ text: String) -> String {
        var bytes: [UInt8] = []
        let input = Array(text.replacingOccurrences(of: "=\n", with: "").utf8)
        var index = 0
        while index < input.count {
            if input[index] == UInt8(ascii: "="), index + 2 < input.count,
                let value = UInt8(String(decoding: input[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index += 3
            } else {
                bytes.append(input[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The `href` of every link in an HTML part, entities `&amp;` and `&#38;` decoded.
    static func hrefs(in html: String) -> [String] {
        html.components(separatedBy: "href=").dropFirst().compactMap { rest -> String? in
            guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
            let value = rest.dropFirst().prefix { $0 != quote }
            return value.replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&#38;", with: "&")
        }
    }

    /// Every `https://`, `http://` or configured-scheme URL in a text part, up to the first space or bracket.
    static func urls(in text: String, schemes: [String]) -> [String] {
        let prefixes = ["https://", "http://"] + schemes.map { $0 + "://" }
        var found: [String] = []
        for word in text.components(separatedBy: .whitespacesAndNewlines) {
            let trimmed = word.trimmingCharacters(in: CharacterSet(charactersIn: "<>()[]\"'"))
            if prefixes.contains(where: { trimmed.lowercased().hasPrefix($0) }) { found.append(trimmed) }
        }
        return found
    }
}

extension MailCheck {
    /// The message's links that are this server's short links, by index, with their codes.
    func shortLinks(_ judge: ShortLinkJudge) -> [(index: Int, code: String)] {
        links.indices.compactMap { index in judge.code(of: links[index].url).map { (index, $0) } }
    }

    /// Each short link of the message is judged by what it leads to as well: its rules and destinations as the API
    /// judges them (problems), and what a visitor would meet (warnings: parameters Link Tracking Protection removes, a
    /// rule's store that Android visitors reach, rules that decide where each reader goes). `stored`: the server's
    /// links by code, nil when its database could not be read (`database` names it).
    mutating func judgeShortLinks(_ stored: [String: SmartLink]?, from database: String, judge: ShortLinkJudge) {
        for (index, code) in shortLinks(judge) {
            guard let stored else {
                links[index].findings.append(
                    .warning(
                        "the short link '\(code)' was not looked up: \(database) cannot be read (give --database-url, or run deeplinks migrate)"
                    )
                )
                continue
            }
            guard let link = stored[code] else {
                links[index].findings.append(.problem("the short link '\(code)' is no link of \(database)"))
                continue
            }
            let judged = judge.judge(link)
            for problem in judged.problems {
                links[index].findings.append(.problem("the short link '\(code)': \(problem)"))
            }
            for warning in judged.warnings {
                links[index].findings.append(.warning("the short link '\(code)': \(warning)"))
            }
            if let rules = link.rules {
                links[index].findings.append(
                    .warning(
                        "the short link '\(code)' has \(rules.count) rule(s) (\(rules.map(\.name).joined(separator: ", "))): where each reader goes depends on them; \(judged.shortURL)?d=1 shows which one fires"
                    )
                )
            }
        }
    }
}
