import DeepLinksJSON

extension AppleAppSiteAssociation {
    /// Reads a parsed file the way iOS does: what has the wrong type is left out, never fatal.
    public init(_ value: JSONValue) {
        let root = value.object ?? [:]
        func appList(_ key: String) -> AppList? {
            root[key]?.object.map { AppList(apps: $0["apps"]?.array?.compactMap(\.string) ?? []) }
        }
        webcredentials = appList("webcredentials")
        appclips = appList("appclips")
        activitycontinuation = appList("activitycontinuation")
        guard let applinks = root["applinks"]?.object else {
            self.applinks = nil
            return
        }
        var variables: [String: [String]] = [:]
        for (name, values) in applinks["substitutionVariables"]?.object ?? [:] {
            if let list = values.array?.compactMap(\.string) { variables[name] = list }
        }
        var details: [Details] = []
        var asDictionary = false
        if let array = applinks["details"]?.array {
            details = array.compactMap { $0.object.map(Self.details) }
        } else if let dictionary = applinks["details"]?.object {
            // S6: keyed by app ID; sorted, so that nothing depends on key order.
            asDictionary = true
            details = dictionary.keys.sorted().map { key in
                var entry = Self.details(dictionary[key]?.object ?? [:])
                entry.appID = key
                entry.appIDs = nil
                return entry
            }
        }
        self.applinks = AppLinks(
            apps: applinks["apps"]?.array?.compactMap(\.string),
            details: details,
            detailsAsDictionary: asDictionary,
            defaults: applinks["defaults"]?.object.map(Self.components),
            substitutionVariables: variables
        )
    }

    static func details(_ object: [String: JSONValue]) -> Details {
        Details(
            appID: object["appID"]?.string,
            appIDs: object["appIDs"]?.array?.compactMap(\.string),
            components: object["components"]?.array?.compactMap { $0.object.map(components) },
            paths: object["paths"]?.array?.compactMap(\.string),
            defaults: object["defaults"]?.object.map(components)
        )
    }

    static func components(_ object: [String: JSONValue]) -> Components {
        var query: Components.Query?
        switch object["?"] {
        case .string(let pattern): query = .pattern(pattern)
        case .object(let items):
            let strings = items.compactMapValues(\.string)
            query = strings.count == items.count ? .items(strings) : .ignored
        default: query = nil
        }
        return Components(
            path: object["/"]?.string,
            query: query,
            fragment: object["#"]?.string,
            exclude: object["exclude"]?.bool,
            comment: object["comment"]?.string,
            caseSensitive: object["caseSensitive"]?.bool,
            percentEncoded: object["percentEncoded"]?.bool
        )
    }

    /// The file as JSON (an ignored query dictionary is left out).
    public var json: JSONValue {
        var root: [String: JSONValue] = [:]
        func list(_ apps: AppList?) -> JSONValue? {
            apps.map { .object(["apps": .array($0.apps.map(JSONValue.string))]) }
        }
        root["webcredentials"] = list(webcredentials)
        root["appclips"] = list(appclips)
        root["activitycontinuation"] = list(activitycontinuation)
        if let applinks {
            var object: [String: JSONValue] = [:]
            object["apps"] = applinks.apps.map { .array($0.map(JSONValue.string)) }
            object["defaults"] = applinks.defaults.map(Self.json)
            if !applinks.substitutionVariables.isEmpty {
                object["substitutionVariables"] = .object(
                    applinks.substitutionVariables.mapValues { .array($0.map(JSONValue.string)) }
                )
            }
            if applinks.detailsAsDictionary {
                var dictionary: [String: JSONValue] = [:]
                for entry in applinks.details {
                    guard let appID = entry.appID else { continue }
                    var copy = entry
                    copy.appID = nil
                    dictionary[appID] = Self.json(copy)
                }
                object["details"] = .object(dictionary)
            } else {
                object["details"] = .array(applinks.details.map(Self.json))
            }
            root["applinks"] = .object(object)
        }
        return .object(root)
    }

    static func json(_ details: Details) -> JSONValue {
        var object: [String: JSONValue] = [:]
        object["appID"] = details.appID.map(JSONValue.string)
        object["appIDs"] = details.appIDs.map { .array($0.map(JSONValue.string)) }
        object["components"] = details.components.map { .array($0.map(json)) }
        object["paths"] = details.paths.map { .array($0.map(JSONValue.string)) }
        object["defaults"] = details.defaults.map(json)
        return .object(object)
    }

    static func json(_ components: Components) -> JSONValue {
        var object: [String: JSONValue] = [:]
        object["/"] = components.path.map(JSONValue.string)
        switch components.query {
        case .pattern(let pattern): object["?"] = .string(pattern)
        case .items(let items): object["?"] = .object(items.mapValues(JSONValue.string))
        case .ignored, nil: break
        }
        object["#"] = components.fragment.map(JSONValue.string)
        object["exclude"] = components.exclude.map(JSONValue.bool)
        object["comment"] = components.comment.map(JSONValue.string)
        object["caseSensitive"] = components.caseSensitive.map(JSONValue.bool)
        object["percentEncoded"] = components.percentEncoded.map(JSONValue.bool)
        return .object(object)
    }
}
