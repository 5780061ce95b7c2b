import DeepLinksJSON
import DeepLinksSupport
import Foundation
import Hummingbird

/// `GET /openapi.json`: the API as an OpenAPI 3.1 document (`openapi-api.json`, written by hand and kept
/// true by a test against the routes the server registers), with the HTML pages this configuration adds (the
/// reset page, the app's paths, the console) listed from the router.
enum OpenAPIRoutes {
    /// The document for `router` as registered so far; register last.
    static func document(for router: Router<AppRequestContext>) throws -> JSONValue {
        guard case .object(var document) = try JSONValue.parse(Data(PackageResources.openapi_api_json)),
            case .object(var paths)? = document["paths"]
        else { throw ConfigurationError(setting: "openapi.json", reason: "the embedded document is not an object") }
        for route in router.routes {
            let (path, parameters) = openAPIPath(route.path.description)
            let method = route.method.rawValue.lowercased()
            guard paths[path]?.object?[method] == nil else { continue }
            var item = paths[path]?.object ?? [:]
            var operation: [String: JSONValue] = [
                "summary": .string(
                    path.hasPrefix("/console")
                        ? "A page of the web console (a signed-in operator's session; forms carry a CSRF token)"
                        : "A page of the configured app (the reset page, a path of the app) or its asset"
                ),
                "x-deeplinks-page": .bool(true),
                "responses": .object([
                    "200": .object([
                        "$ref": .string("#/components/responses/\(path.hasPrefix("/assets/") ? "Asset" : "Page")")
                    ]),
                    "default": .object(["$ref": .string("#/components/responses/Error")]),
                ]),
            ]
            if !parameters.isEmpty {
                operation["parameters"] = .array(
                    parameters.map {
                        .object([
                            "name": .string($0), "in": .string("path"), "required": .bool(true),
                            "schema": .object(["type": .string("string")]),
                        ])
                    }
                )
            }
            item[method] = .object(operation)
            paths[path] = .object(item)
        }
        document["paths"] = .object(paths)
        // A rule's conditions, each from its own type (RuleConditions): the document cannot leave one out.
        let when: [String] = ["components", "schemas", "LinkRule", "properties", "when", "properties"]
        document =
            try JSONValue.object(document).setting(when, to: .object(RuleConditions.schemaProperties())).object
            ?? document
        return .object(document)
    }

    /// A router path (`/v1/links/{code}`, as Hummingbird prints it) with its parameter names; a wildcard
    /// segment (`*`, `**`) becomes a parameter of its own.
    static func openAPIPath(_ path: String) -> (String, [String]) {
        var parameters: [String] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            if segment.hasPrefix("{"), segment.hasSuffix("}") {
                parameters.append(String(segment.dropFirst().dropLast()))
            } else if segment == "*" || segment == "**" {
                parameters.append("segment\(parameters.count + 1)")
                return "{\(parameters.last!)}"
            }
            return String(segment)
        }
        return (segments.joined(separator: "/"), parameters)
    }

    static func register(on router: Router<AppRequestContext>) throws {
        let body = try document(for: router).compactJSON
        router.get("/openapi.json") { _, _ -> Response in
            Response(
                status: .ok,
                headers: [.contentType: "application/json", .cacheControl: "public, max-age=300"],
                body: .init(byteBuffer: ByteBuffer(string: body))
            )
        }
    }
}

extension JSONValue {
    /// This value with the object at `path` replaced by `value` (the objects on the way must exist).
    func setting(_ path: some Collection<String>, to value: JSONValue) throws -> JSONValue {
        guard let key = path.first else { return value }
        guard case .object(var object) = self, let inner = object[key] else {
            throw ConfigurationError(setting: "openapi.json", reason: "the embedded document has no \(key)")
        }
        object[key] = try inner.setting(path.dropFirst(), to: value)
        return .object(object)
    }
}
