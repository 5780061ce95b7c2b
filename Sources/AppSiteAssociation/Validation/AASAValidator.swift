import DeepLinksJSON
import Foundation

/// Validates an apple-app-site-association file against the diagnostics of <doc:HowIOSReadsAssociationFiles>, reporting every diagnostic
/// (not the first), each with its JSON pointer.
public enum AASAValidator {
    /// Size limits of H5: an error above 131,072 bytes, a warning above 128,000.
    public static let maximumSize = 131_072
    public static let warningSize = 128_000

    /// Validates raw bytes: size, byte-order mark, JSON syntax, then the document.
    public static func validate(data: Data) -> [AASADiagnostic] {
        var found: [AASADiagnostic] = []
        if data.count > maximumSize {
            found.append(
                .init(
                    .tooLarge,
                    .error,
                    "",
                    "the file is \(data.count) bytes; iOS reads at most 128 KB (131,072 bytes) uncompressed"
                )
            )
        } else if data.count > warningSize {
            found.append(
                .init(
                    .tooLarge,
                    .warning,
                    "",
                    "the file is \(data.count) bytes, close to iOS's 128 KB limit (read as 128,000 bytes by some)"
                )
            )
        }
        if data.starts(with: [0xEF, 0xBB, 0xBF]) {
            found.append(.init(.bom, .warning, "", "the file starts with a UTF-8 byte-order mark; remove it"))
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(data)
        } catch {
            found.append(
                .init(
                    .invalidJson,
                    .error,
                    "",
                    data.isEmpty
                        ? "the file is empty"
                        : "the file is not valid JSON (no comments, trailing commas or single quotes)"
                )
            )
            return found
        }
        return found + validate(value)
    }

    /// Validates a parsed document.
    public static func validate(_ document: JSONValue) -> [AASADiagnostic] {
        var checker = Checker()
        checker.root(document)
        return checker.found
    }

    static let serviceKeys: Set<String> = ["applinks", "webcredentials", "appclips", "activitycontinuation"]
    static let applinksKeys: Set<String> = ["details", "defaults", "substitutionVariables", "apps"]
    static let detailsKeys: Set<String> = ["appID", "appIDs", "components", "paths", "defaults"]
    static let componentKeys: Set<String> = ["/", "?", "#", "exclude", "comment", "caseSensitive", "percentEncoded"]

    /// `^[A-Z0-9]{10}\.[A-Za-z0-9.-]+$` (S7).
    static func isAppID(_ value: String) -> Bool {
        let scalars = Array(value.unicodeScalars)
        guard scalars.count > 11, scalars[10] == "." else { return false }
        return scalars[..<10].allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
            && scalars[11...].allSatisfy {
                ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "."
                    || $0 == "-"
            }
    }

    struct Checker {
        var found: [AASADiagnostic] = []
        var variables: Set<String> = []

        mutating func report(
            _ code: AASADiagnostic.Code,
            _ severity: AASADiagnostic.Severity,
            _ pointer: String,
            _ message: String
        ) {
            found.append(.init(code, severity, pointer, message))
        }

        mutating func type(_ pointer: String, _ expected: String, _ value: JSONValue) {
            report(.wrongType, .error, pointer, "expected \(expected), found \(value.typeName)")
        }

        mutating func unknownKeys(_ object: [String: JSONValue], _ known: Set<String>, _ pointer: String) {
            for key in object.keys.sorted() where !known.contains(key) {
                let hint = known.first { $0.lowercased() == key.lowercased() }.map { " (did you mean '\($0)'?)" } ?? ""
                report(
                    .unknownKey,
                    .warning,
                    JSONPointer.append(pointer, key),
                    "'\(key)' is not a key iOS reads here; it is ignored\(hint)"
                )
            }
        }

        mutating func root(_ document: JSONValue) {
            guard let root = document.object else {
                report(.rootNotObject, .error, "", "the top level must be an object, not \(document.typeName)")
                return
            }
            if !root.keys.contains(where: AASAValidator.serviceKeys.contains) {
                report(
                    .noService,
                    .error,
                    "",
                    "none of applinks, webcredentials, appclips or activitycontinuation is present"
                )
            }
            unknownKeys(root, AASAValidator.serviceKeys, "")
            for service in ["webcredentials", "appclips", "activitycontinuation"] {
                guard let value = root[service] else { continue }
                let pointer = "/" + service
                guard let object = value.object else {
                    type(pointer, "an object", value)
                    continue
                }
                unknownKeys(object, ["apps"], pointer)
                if let apps = object["apps"] { appIDList(apps, JSONPointer.append(pointer, "apps")) }
            }
            if let applinks = root["applinks"] { self.applinks(applinks) }
        }

        mutating func appIDList(_ value: JSONValue, _ pointer: String) {
            guard let array = value.array else { return type(pointer, "an array of app IDs", value) }
            for (index, item) in array.enumerated() {
                appID(item, JSONPointer.append(pointer, index))
            }
        }

        mutating func appID(_ value: JSONValue, _ pointer: String) {
            guard let text = value.string else { return type(pointer, "a string", value) }
            if !AASAValidator.isAppID(text) {
                report(
                    .appidFormat,
                    .error,
                    pointer,
                    "'\(text)' is not TEAMID.bundle.id (ten upper-case letters or digits, a dot, then letters, digits, '.' or '-')"
                )
            }
        }

        mutating func applinks(_ value: JSONValue) {
            let pointer = "/applinks"
            guard let applinks = value.object else { return type(pointer, "an object", value) }
            unknownKeys(applinks, AASAValidator.applinksKeys, pointer)
            if let apps = applinks["apps"] {
                if let array = apps.array {
                    if !array.isEmpty {
                        report(.appsNotEmpty, .error, "/applinks/apps", "the legacy 'apps' key must be an empty array")
                    }
                } else {
                    type("/applinks/apps", "an empty array", apps)
                }
            }
            substitutionVariables(applinks["substitutionVariables"])
            if let defaults = applinks["defaults"] { component(defaults, "/applinks/defaults", isDefaults: true) }
            guard let details = applinks["details"] else {
                report(.missingDetails, .error, pointer, "applinks has no 'details': no app gets universal links")
                return
            }
            var seen: [String: String] = [:]
            switch details {
            case .array(let entries):
                if entries.isEmpty {
                    report(
                        .emptyDetails,
                        .warning,
                        "/applinks/details",
                        "'details' is empty: no app gets universal links"
                    )
                }
                for (index, entry) in entries.enumerated() {
                    self.entry(entry, "/applinks/details/\(index)", legacyAppID: nil, seen: &seen)
                }
            case .object(let dictionary):
                report(
                    .legacyDetailsDict,
                    .warning,
                    "/applinks/details",
                    "'details' as a dictionary keyed by app ID is the oldest form; use an array of objects with appIDs"
                )
                for key in dictionary.keys.sorted() {
                    let pointer = JSONPointer.append("/applinks/details", key)
                    appID(.string(key), pointer)
                    entry(dictionary[key]!, pointer, legacyAppID: key, seen: &seen)
                }
            default:
                type("/applinks/details", "an array", details)
            }
        }

        mutating func substitutionVariables(_ value: JSONValue?) {
            guard let value else { return }
            let pointer = "/applinks/substitutionVariables"
            guard let object = value.object else { return type(pointer, "an object of string arrays", value) }
            for name in object.keys.sorted() {
                let itemPointer = JSONPointer.append(pointer, name)
                variables.insert(name)
                if name.contains(where: { "$()".contains($0) }) {
                    report(.substName, .error, itemPointer, "a variable name may not contain '$', '(' or ')'")
                }
                if AASAPattern.predefinedNames.contains(name) {
                    report(
                        .substShadowsPredefined,
                        .warning,
                        itemPointer,
                        "'\(name)' is also a predefined variable; which one iOS uses is undocumented"
                    )
                }
                guard let values = object[name]!.array else {
                    type(itemPointer, "an array of strings", object[name]!)
                    continue
                }
                if values.isEmpty {
                    report(
                        .substEmpty,
                        .warning,
                        itemPointer,
                        "the variable has no values: patterns using it never match"
                    )
                }
                for (index, item) in values.enumerated() {
                    let valuePointer = JSONPointer.append(itemPointer, index)
                    guard let text = item.string else {
                        type(valuePointer, "a string", item)
                        continue
                    }
                    if text.isEmpty {
                        report(
                            .substEmptyValue,
                            .warning,
                            valuePointer,
                            "an empty alternative matches the empty string"
                        )
                    }
                    if text.contains("$(") {
                        report(.substNested, .error, valuePointer, "a value may not use another variable")
                    }
                }
            }
        }

        mutating func entry(_ value: JSONValue, _ pointer: String, legacyAppID: String?, seen: inout [String: String]) {
            guard let entry = value.object else { return type(pointer, "an object", value) }
            unknownKeys(
                entry,
                legacyAppID == nil
                    ? AASAValidator.detailsKeys : AASAValidator.detailsKeys.subtracting(["appID", "appIDs"]),
                pointer
            )
            var names: [String] = legacyAppID.map { [$0] } ?? []
            if let appID = entry["appID"] {
                self.appID(appID, JSONPointer.append(pointer, "appID"))
                if let text = appID.string { names.append(text) }
            }
            if let appIDs = entry["appIDs"] {
                appIDList(appIDs, JSONPointer.append(pointer, "appIDs"))
                names += appIDs.array?.compactMap(\.string) ?? []
                if appIDs.array?.isEmpty == true {
                    report(
                        .missingAppid,
                        .error,
                        JSONPointer.append(pointer, "appIDs"),
                        "'appIDs' is empty: the entry applies to no app"
                    )
                }
            }
            if entry["appID"] != nil, entry["appIDs"] != nil {
                report(
                    .bothAppidForms,
                    .warning,
                    pointer,
                    "both 'appID' and 'appIDs': read as their union, which iOS does not document"
                )
            }
            if legacyAppID == nil, entry["appID"] == nil, entry["appIDs"] == nil {
                report(.missingAppid, .error, pointer, "the entry names no app (appID or appIDs): it applies to none")
            }
            for name in Set(names).sorted() {
                if let first = seen[name] {
                    report(
                        .duplicateAppid,
                        .warning,
                        pointer,
                        "\(name) is already named at \(first); the first matching rule across entries decides"
                    )
                } else {
                    seen[name] = pointer
                }
            }
            if let defaults = entry["defaults"] {
                component(defaults, JSONPointer.append(pointer, "defaults"), isDefaults: true)
            }
            let components = entry["components"]
            let paths = entry["paths"]
            if components == nil, paths == nil {
                report(.noRules, .warning, pointer, "the entry has neither 'components' nor 'paths': nothing matches")
            }
            if components != nil, paths != nil {
                report(
                    .pathsIgnored,
                    .warning,
                    JSONPointer.append(pointer, "paths"),
                    "iOS 13 and later ignore 'paths' when 'components' is present"
                )
            }
            if let components {
                if let array = components.array {
                    var unconditionalAt: Int?
                    for (index, component) in array.enumerated() {
                        let componentPointer = "\(pointer)/components/\(index)"
                        if let first = unconditionalAt {
                            report(
                                .unreachableRule,
                                .warning,
                                componentPointer,
                                "rule \(first) matches every URL, so this rule is never reached"
                            )
                        }
                        self.component(component, componentPointer, isDefaults: false)
                        if unconditionalAt == nil, let object = component.object, Self.isUnconditional(object) {
                            unconditionalAt = index
                        }
                    }
                } else {
                    type(JSONPointer.append(pointer, "components"), "an array of objects", components)
                }
            }
            if let paths {
                guard let array = paths.array else {
                    return type(JSONPointer.append(pointer, "paths"), "an array of strings", paths)
                }
                var unconditionalAt: Int?
                for (index, item) in array.enumerated() {
                    let itemPointer = "\(pointer)/paths/\(index)"
                    guard let text = item.string else {
                        type(itemPointer, "a string", item)
                        continue
                    }
                    if let first = unconditionalAt {
                        report(
                            .unreachableRule,
                            .warning,
                            itemPointer,
                            "path \(first) matches every URL, so this path is never reached"
                        )
                    }
                    let pattern = text.hasPrefix("NOT ") ? String(text.dropFirst(4)) : text
                    self.pattern(pattern, itemPointer)
                    if pattern.contains("#") {
                        report(
                            .hashInPath,
                            .warning,
                            itemPointer,
                            "a path never contains '#': the fragment cannot be matched here"
                        )
                    }
                    if let question = pattern.firstIndex(of: "?"), pattern[question...].contains("=") {
                        report(
                            .queryInPath,
                            .warning,
                            itemPointer,
                            "'?' is a one-character wildcard in a path, not the start of a query; legacy paths ignore the query"
                        )
                    }
                    if unconditionalAt == nil, pattern == "*" || pattern == "/*" { unconditionalAt = index }
                }
            }
        }

        static func isUnconditional(_ rule: [String: JSONValue]) -> Bool {
            for key in ["/", "?", "#"] {
                guard let value = rule[key] else { continue }
                guard let text = value.string, text == "*" || (key == "/" && text == "/*") else { return false }
            }
            return true
        }

        mutating func component(_ value: JSONValue, _ pointer: String, isDefaults: Bool) {
            guard let rule = value.object else { return type(pointer, "an object", value) }
            unknownKeys(rule, AASAValidator.componentKeys, pointer)
            for key in ["/", "#"] {
                guard let item = rule[key] else { continue }
                let itemPointer = JSONPointer.append(pointer, key)
                guard let text = item.string else {
                    type(itemPointer, "a string pattern", item)
                    continue
                }
                pattern(text, itemPointer)
                if key == "/", text.contains("#") {
                    report(
                        .hashInPath,
                        .warning,
                        itemPointer,
                        "a path never contains '#': use the '#' key to match the fragment"
                    )
                }
            }
            if let query = rule["?"] {
                let queryPointer = JSONPointer.append(pointer, "?")
                switch query {
                case .string(let text):
                    pattern(text, queryPointer)
                case .object(let items):
                    for name in items.keys.sorted() {
                        let itemPointer = JSONPointer.append(queryPointer, name)
                        if let text = items[name]!.string {
                            pattern(text, itemPointer)
                        } else {
                            report(
                                .queryPredicateType,
                                .error,
                                itemPointer,
                                "query value is \(items[name]!.typeName): iOS then ignores the whole '?' dictionary and the rule matches any query"
                            )
                        }
                    }
                default:
                    type(queryPointer, "a string or an object of strings", query)
                }
            }
            for key in ["exclude", "caseSensitive", "percentEncoded"] {
                if let item = rule[key], item.bool == nil {
                    type(JSONPointer.append(pointer, key), "true or false", item)
                }
            }
            if let comment = rule["comment"], comment.string == nil {
                type(JSONPointer.append(pointer, "comment"), "a string", comment)
            }
        }

        /// Checks the `$(...)` references of a pattern (SV5, SV11).
        mutating func pattern(_ text: String, _ pointer: String) {
            var rest = Substring(text)
            while let start = rest.range(of: "$(") {
                let after = rest[start.upperBound...]
                guard let close = after.firstIndex(of: ")") else {
                    report(.substUnterminated, .error, pointer, "'$(' is not closed by ')'")
                    return
                }
                let name = String(after[..<close])
                if !variables.contains(name), !AASAPattern.predefinedNames.contains(name) {
                    let detail =
                        name == "any"
                        ? " ($(any) is not an Apple variable; use *)" : name.isEmpty ? " ($() names nothing)" : ""
                    report(
                        .substUndefined,
                        .error,
                        pointer,
                        "$(\(name)) is neither a substitution variable of this file nor a predefined one\(detail)"
                    )
                }
                rest = after[after.index(after: close)...]
            }
        }
    }
}
