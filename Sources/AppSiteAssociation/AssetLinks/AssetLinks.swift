import DeepLinksJSON
import Foundation

/// Android's Digital Asset Links file (`/.well-known/assetlinks.json`): an array of statements, each
/// granting relations to a target (an Android app by package name and signing-certificate fingerprints).
public struct AssetLinksStatement: Sendable, Hashable, Codable {
    public struct Target: Sendable, Hashable, Codable {
        public var namespace: String
        public var packageName: String?
        public var sha256CertFingerprints: [String]?
        public var site: String?

        enum CodingKeys: String, CodingKey {
            case namespace
            case packageName = "package_name"
            case sha256CertFingerprints = "sha256_cert_fingerprints"
            case site
        }
    }

    public var relation: [String]
    public var target: Target

    /// The relation App Links need.
    public static let handleAllURLs = "delegate_permission/common.handle_all_urls"

    /// The statement that lets an Android app open the site's links.
    public static func appLinks(packageName: String, fingerprints: [String]) -> AssetLinksStatement {
        AssetLinksStatement(
            relation: [handleAllURLs],
            target: Target(
                namespace: "android_app",
                packageName: packageName,
                sha256CertFingerprints: fingerprints,
                site: nil
            )
        )
    }

    public init(relation: [String], target: Target) {
        self.relation = relation
        self.target = target
    }
}

/// Validates assetlinks.json: JSON shape, relation strings, namespaces, package names and SHA-256
/// fingerprints (`AB:CD:…`, 32 bytes). Same diagnostic type and rules as ``AASAValidator``.
public enum AssetLinksValidator {
    static let knownRelations: Set<String> = [
        "delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds",
        "delegate_permission/common.use_as_origin",
    ]

    public static func validate(data: Data) -> [AASADiagnostic] {
        guard let value = try? JSONValue.parse(data) else {
            return [.init(.assetLinksInvalidJson, .error, "", "the file is not valid JSON")]
        }
        return validate(value)
    }

    public static func validate(_ document: JSONValue) -> [AASADiagnostic] {
        var found: [AASADiagnostic] = []
        func report(
            _ code: AASADiagnostic.Code,
            _ severity: AASADiagnostic.Severity,
            _ pointer: String,
            _ message: String
        ) {
            found.append(.init(code, severity, pointer, message))
        }
        guard let statements = document.array else {
            report(
                .assetLinksRootNotArray,
                .error,
                "",
                "the top level must be an array of statements, not \(document.typeName)"
            )
            return found
        }
        var grantsAppLinks = false
        for (index, statement) in statements.enumerated() {
            let pointer = "/\(index)"
            guard let object = statement.object else {
                report(
                    .assetLinksWrongType,
                    .error,
                    pointer,
                    "a statement must be an object, not \(statement.typeName)"
                )
                continue
            }
            for key in object.keys.sorted() where !["relation", "target"].contains(key) {
                report(
                    .assetLinksUnknownKey,
                    .warning,
                    JSONPointer.append(pointer, key),
                    "'\(key)' is not part of a statement; it is ignored"
                )
            }
            let relations = object["relation"]?.array
            if relations == nil || relations!.isEmpty {
                report(
                    .assetLinksRelation,
                    .error,
                    pointer + "/relation",
                    "a statement needs a non-empty 'relation' array"
                )
            }
            for (relationIndex, relation) in (relations ?? []).enumerated() {
                let relationPointer = "\(pointer)/relation/\(relationIndex)"
                guard let text = relation.string else {
                    report(
                        .assetLinksWrongType,
                        .error,
                        relationPointer,
                        "a relation must be a string, not \(relation.typeName)"
                    )
                    continue
                }
                if text == AssetLinksStatement.handleAllURLs { grantsAppLinks = true }
                if !knownRelations.contains(text) {
                    let wellFormed =
                        text.split(separator: "/").count == 2
                        && text.allSatisfy { $0.isLetter || $0 == "_" || $0 == "." || $0 == "/" }
                    report(
                        .assetLinksRelation,
                        wellFormed ? .warning : .error,
                        relationPointer,
                        wellFormed
                            ? "'\(text)' is not a relation Android defines for apps"
                            : "'\(text)' is not a relation string (namespace/name)"
                    )
                }
            }
            guard let target = object["target"]?.object else {
                report(.assetLinksWrongType, .error, pointer + "/target", "a statement needs a 'target' object")
                continue
            }
            switch target["namespace"]?.string {
            case "android_app":
                if let name = target["package_name"]?.string {
                    if !isPackageName(name) {
                        report(
                            .assetLinksPackageName,
                            .error,
                            pointer + "/target/package_name",
                            "'\(name)' is not an Android package name (at least two dot-separated parts, each a letter then letters, digits or '_')"
                        )
                    }
                } else {
                    report(
                        .assetLinksPackageName,
                        .error,
                        pointer + "/target/package_name",
                        "an android_app target needs 'package_name'"
                    )
                }
                let fingerprints = target["sha256_cert_fingerprints"]?.array ?? []
                if fingerprints.isEmpty {
                    report(
                        .assetLinksFingerprint,
                        .error,
                        pointer + "/target/sha256_cert_fingerprints",
                        "an android_app target needs at least one SHA-256 certificate fingerprint"
                    )
                }
                for (fingerprintIndex, fingerprint) in fingerprints.enumerated() {
                    let fingerprintPointer = "\(pointer)/target/sha256_cert_fingerprints/\(fingerprintIndex)"
                    guard let text = fingerprint.string, isFingerprint(text.uppercased()) else {
                        report(
                            .assetLinksFingerprint,
                            .error,
                            fingerprintPointer,
                            "not a SHA-256 fingerprint: 32 bytes as upper-case hex pairs joined by ':'"
                        )
                        continue
                    }
                    if text != text.uppercased() {
                        report(
                            .assetLinksFingerprint,
                            .warning,
                            fingerprintPointer,
                            "write the fingerprint in upper case, as keytool prints it"
                        )
                    }
                }
            case "web":
                if target["site"]?.string == nil {
                    report(.assetLinksWrongType, .error, pointer + "/target/site", "a web target needs 'site'")
                }
            case let other:
                report(
                    .assetLinksNamespace,
                    .error,
                    pointer + "/target/namespace",
                    "namespace must be android_app or web, not \(other.map { "'\($0)'" } ?? "missing")"
                )
            }
        }
        if !grantsAppLinks {
            report(
                .assetLinksNoAppLinks,
                .warning,
                "",
                "no statement grants \(AssetLinksStatement.handleAllURLs): Android App Links will not open an app"
            )
        }
        return found
    }

    static func isPackageName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2
            && parts.allSatisfy { part in
                guard let first = part.first, first.isASCII, first.isLetter else { return false }
                return part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
            }
    }

    static func isFingerprint(_ text: String) -> Bool {
        let pairs = text.split(separator: ":", omittingEmptySubsequences: false)
        return pairs.count == 32 && pairs.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }
    }
}
