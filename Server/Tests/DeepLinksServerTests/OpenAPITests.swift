import Foundation
import HTTPTypes
import Logging
import Testing

@testable import DeepLinksServer

/// `/openapi.json` against the routes the server registers: every documented operation exists, and every
/// registered API route is documented (only the configuration's HTML pages are listed from the router).
@Suite struct OpenAPITests {
    static func operations(_ document: [String: Any], pages: Bool) -> Set<String> {
        var found = Set<String>()
        for (path, item) in document["paths"] as? [String: [String: Any]] ?? [:] {
            for (method, operation) in item where method != "parameters" {
                let isPage = (operation as? [String: Any])?["x-deeplinks-page"] as? Bool == true
                if isPage == pages { found.insert("\(method.uppercased()) \(path)") }
            }
        }
        return found
    }

    /// The API's error codes are constants (`APIError.Code`), and the document lists exactly those.
    @Test func theDocumentListsEveryErrorCode() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in
                let document = try await api.get("/openapi.json").object
                let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any]
                let error = ((schemas?["Error"] as? [String: Any])?["properties"] as? [String: Any])?["error"]
                let listed = try #require((error as? [String: Any])?["description"] as? String)
                let documented = Set(listed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                #expect(documented == Set(APIError.Code.allCases.map(\.rawValue)))
            }
        }
    }

    @Test(arguments: [false, true])
    func theDocumentDescribesEveryRegisteredRoute(external: Bool) async throws {
        try await ResetWorld.with(.sqlite, external: external) { world in
            try await world.serve { api in
                let answer = try await api.get("/openapi.json")
                #expect(answer.status == .ok && answer.headers[.contentType] == "application/json")
                let document = answer.object
                #expect(document["openapi"] as? String == "3.1.0")
                #expect(Set((document["webhooks"] as? [String: Any] ?? [:]).keys) == ["lookup", "password"])

                var settings = world.settings()
                if external {
                    settings.app.externalAccounts = ExternalAccounts(backend: "http://127.0.0.1:9")
                    settings.hookSecrets = try #require(world.backend).secretKeys
                }
                let registered = Set(
                    try DeepLinksApplication.routeList(
                        settings: settings,
                        database: world.database,
                        logger: Logger(label: "test")
                    )
                )
                let documented = Self.operations(document, pages: false)
                let externalOnly: Set = [
                    "POST /v1/reset-links", "POST /v1/reset-links/consume", "POST /v1/reset-links/revoke",
                ]
                let androidOnly: Set = ["GET /.well-known/assetlinks.json", "HEAD /.well-known/assetlinks.json"]
                let stale = documented.subtracting(registered).subtracting(external ? [] : externalOnly)
                    .subtracting(settings.app.android == nil ? androidOnly : [])
                #expect(stale.isEmpty, "documented but not registered: \(stale.sorted())")
                let undocumented = registered.subtracting(documented).subtracting(
                    Self.operations(document, pages: true)
                )
                #expect(undocumented.isEmpty, "registered but not in the document: \(undocumented.sorted())")
                let pages = Self.operations(document, pages: true)
                #expect(
                    pages.contains("GET /reset-password") && pages.contains("POST /reset-password"),
                    "\(pages.sorted())"
                )
                let apiPages = pages.filter {
                    $0.contains(" /v1/") || $0.contains(" /.well-known/") || $0.hasSuffix("/healthz")
                }
                #expect(apiPages.isEmpty, "API routes must be described by hand: \(apiPages.sorted())")
            }
        }
    }
}

/// The contract and the endpoints agree where the audit found them apart (#43): the export's columns, the import's
/// `column.*` parameters, and 405 with `Allow` for a method a path of the API does not have.
@Suite struct OpenAPIAgreementTests {
    @Test func theExportColumnsTheImportParametersAndUndeclaredMethodsAreAsDocumented() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(SmartLinkTests.configure) { api in
                let document = try await api.get("/openapi.json").object
                let paths = try #require(document["paths"] as? [String: [String: Any]])
                let export = (paths["/v1/links/export"]?["get"] as? [String: Any])?["responses"] as? [String: Any]
                let described = try #require((export?["200"] as? [String: Any])?["description"] as? String)
                #expect(described == "CSV: " + LinkExport.header.joined(separator: ", "))
                let parameters =
                    (paths["/v1/links/import"]?["post"] as? [String: Any])?["parameters"] as? [[String: Any]]
                let columns = Set(
                    (parameters ?? []).compactMap { $0["name"] as? String }.filter { $0.hasPrefix("column.") }
                )
                let fields = Set(LinkImport.Format.allCases.flatMap { LinkImport.fields($0).map { "column." + $0.0 } })
                #expect(columns == fields)

                for (method, path, allow) in [
                    (HTTPRequest.Method.delete, "/v1/links", "GET, HEAD, POST"),
                    (.patch, "/v1/links/summer", "DELETE, GET, HEAD, PUT"),
                    (.put, "/v1/links/export", "GET, HEAD"),
                ] {
                    let answer = try await api.get(path, method: method, headers: SmartLinkTests.admin)
                    #expect(answer.status == .methodNotAllowed, "\(method) \(path): \(answer.status)")
                    #expect(answer.headers[.allow] == allow, "\(method) \(path)")
                    #expect(answer.object["error"] as? String == "method_not_allowed")
                }
                #expect(try await api.get("/v1/nothing-here", method: .delete).status == .notFound)
            }
        }
    }
}
