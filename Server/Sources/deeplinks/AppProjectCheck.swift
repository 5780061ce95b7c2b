import AppSiteAssociation
import DeepLinksServer
import DeepLinksSupport
import Foundation

/// `deeplinks check --info-plist FILE --entitlements FILE`: what the app's own files must say for the
/// configured links to reach it. The Info.plist registers the custom scheme (a URL type with a name and a role);
/// the associated-domains entitlement lists `applinks:` for every configured domain; and, read with that
/// entitlement as iOS reads it, the association file the server generates opens the app on each domain.
enum AppProjectCheck {
    /// A property list file, XML or binary, whose root is a dictionary.
    static func read(_ path: String) throws(ConfigurationError) -> [String: Any] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigurationError(setting: path, reason: "cannot be read (\(error.localizedDescription))")
        }
        guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) else {
            throw ConfigurationError(setting: path, reason: "is not a property list (XML or binary)")
        }
        guard let dictionary = plist as? [String: Any] else {
            throw ConfigurationError(setting: path, reason: "is a property list whose root is not a dictionary")
        }
        return dictionary
    }

    /// The configured app an Info.plist belongs to: the one its `CFBundleIdentifier` names, else the primary.
    static func app(for infoPlist: [String: Any]?, in configuration: AppConfiguration) -> AppConfiguration {
        (infoPlist?["CFBundleIdentifier"] as? String).flatMap { configuration.app(bundleID: $0) }
            ?? configuration.apps[0]
    }

    /// The Info.plist's bundle identifier and URL types against the configured app.
    static func infoPlistFindings(_ plist: [String: Any], app: AppConfiguration) -> [Finding] {
        var findings: [Finding] = []
        if let identifier = plist["CFBundleIdentifier"] as? String, !identifier.contains("$("),
            identifier != app.bundleID
        {
            findings.append(
                .problem(
                    "Info.plist: CFBundleIdentifier is '\(identifier)', the configuration's bundle ID is '\(app.bundleID)'"
                )
            )
        }
        // TN3187: built with the iOS 27 SDK, an app without the scene-based life cycle does not launch.
        if plist["UIApplicationSceneManifest"] == nil {
            findings.append(
                .problem(
                    "Info.plist: no UIApplicationSceneManifest: built with the iOS 27 SDK (Xcode 27), an app without the scene-based life cycle does not launch (Apple's TN3187); add the manifest and move the link lines to a scene delegate (DocC: Wiring deep links in each app life cycle). A target whose Info.plist Xcode generates has it in the built app's Info.plist: check that one"
                )
            )
        }
        let types = plist["CFBundleURLTypes"] as? [[String: Any]] ?? []
        let registering = types.filter { type in
            (type["CFBundleURLSchemes"] as? [String] ?? []).contains { $0.lowercased() == app.customScheme }
        }
        guard let type = registering.first else {
            findings.append(
                .problem(
                    "Info.plist: no URL type registers the scheme '\(app.customScheme)' (CFBundleURLTypes ▸ CFBundleURLSchemes)"
                )
            )
            return findings
        }
        if registering.count > 1 {
            findings.append(
                .warning(
                    "Info.plist: \(registering.count) URL types register the scheme '\(app.customScheme)'; keep one"
                )
            )
        }
        if (type["CFBundleURLName"] as? String ?? "").isEmpty {
            findings.append(
                .problem(
                    "Info.plist: the URL type of '\(app.customScheme)' has no CFBundleURLName (a unique reverse-DNS name, such as \(app.bundleID))"
                )
            )
        }
        if let role = type["CFBundleTypeRole"] as? String {
            if !["Editor", "Viewer", "Shell", "None"].contains(role) {
                findings.append(
                    .problem(
                        "Info.plist: the URL type of '\(app.customScheme)' has the role '\(role)' (Editor, Viewer, Shell or None)"
                    )
                )
            }
        } else {
            findings.append(
                .problem(
                    "Info.plist: the URL type of '\(app.customScheme)' has no CFBundleTypeRole (Editor for an app that opens its links)"
                )
            )
        }
        return findings
    }

    /// The associated-domains entitlement against the configured domains, and the generated association file
    /// read through it (which file governs each domain, and whether it opens the app there).
    static func entitlementFindings(_ plist: [String: Any], app: AppConfiguration, files: AssociationFiles)
        -> [Finding]
    {
        let key = "com.apple.developer.associated-domains"
        guard let entries = plist[key] as? [String] else {
            return [.problem("entitlements: no \(key) array: universal links cannot open the app")]
        }
        var findings: [Finding] = []
        let domains: AssociatedDomains
        do {
            domains = try AssociatedDomains(entries)
        } catch {
            return [.problem("entitlements: \(error)")]
        }
        let links = entries.filter { $0.hasPrefix("applinks:") }
        for entry in links where entry.contains("?mode=") {
            findings.append(
                .warning(
                    "entitlements: '\(entry)' is for development: the alternate mode fetches from your server only in a development-signed build with developer mode on; release builds read Apple's CDN"
                )
            )
        }
        let hosts = Set(links.map { String($0.dropFirst("applinks:".count).prefix { $0 != "?" }).lowercased() })
        for host in hosts.sorted() where !app.domains.contains(host) && !host.hasPrefix("*.") {
            findings.append(
                .warning(
                    "entitlements: applinks:\(host) is not a configured domain: this server does not serve its association file"
                )
            )
        }
        let matcher = files.matcher
        let path = app.passwordReset?.path ?? "/"
        for domain in app.domains {
            guard
                hosts.contains(domain)
                    || hosts.contains(where: { $0.hasPrefix("*.") && domain.hasSuffix($0.dropFirst()) })
            else {
                findings.append(
                    .problem(
                        "entitlements: applinks:\(domain) is missing: iOS opens no universal link of \(domain) in the app"
                    )
                )
                continue
            }
            // Which file iOS reads for the domain (a wildcard entry names the parent's), and whether it opens the app.
            let decision = matcher.decide(
                appID: app.appID,
                url: "https://\(domain)\(path)",
                domain: domain,
                entitlements: domains
            )
            if decision.verdict != .match {
                findings.append(
                    .problem(
                        "entitlements: with these entries, iOS would not open the app for https://\(domain)\(path): \(decision.trace.last ?? decision.verdict.rawValue)"
                    )
                )
            }
        }
        return findings
    }
}
