import DeepLinksQR
import DeepLinksTestSupport
import Foundation
import HTTPTypes
import Testing

@testable import DeepLinksServer

/// `GET /v1/links/{code}/qr`: the short link tagged `?qr=1`, as SVG or PNG, behind the admin key; bad options refused
/// with the parameter and the reason.
@Suite struct QRCodeAPITests {
    @Test func theAPIServesTheShortLinksCodeAndRefusesBadOptions() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(SmartLinkTests.configure) { api in
                #expect(
                    try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                let svg = try await api.get("/v1/links/summer/qr", headers: SmartLinkTests.admin)
                #expect(svg.status == .ok)
                #expect(svg.headers[.contentType] == "image/svg+xml")
                let expected = try QRCode(text: "https://links.example.com/summer?qr=1", level: .medium)
                #expect(svg.text == QRImage(code: expected, margin: 4).svg(pixels: 512))

                let png = try await api.get(
                    "/v1/links/summer/qr?format=png&size=300&margin=2&level=H",
                    headers: SmartLinkTests.admin
                )
                #expect(png.status == .ok)
                #expect(png.headers[.contentType] == "image/png")
                let high = try QRCode(text: "https://links.example.com/summer?qr=1", level: .high)
                #expect(Array(png.body.readableBytesView) == QRImage(code: high, margin: 2).png(pixels: 300))
                if let zbarimg = ZBar.path() {
                    let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString).png")
                    try Data(png.body.readableBytesView).write(to: file)
                    defer { try? FileManager.default.removeItem(at: file) }
                    #expect(
                        try ZBar.run(zbarimg, ["--raw", "-q", file.path])
                            == "https://links.example.com/summer?qr=1\n"
                    )
                }

                // A scan opens the link without the tag and is counted apart; a plain click is not a scan.
                let scan = try await api.get(
                    "/summer?qr=1&utm_source=poster",
                    headers: [.userAgent: SmartLinkTests.desktop]
                )
                #expect(scan.status == .found)
                #expect(scan.headers[.location] == "https://links.example.com/web/post/10?utm_source=poster")
                _ = try await api.get("/summer", headers: [.userAgent: SmartLinkTests.desktop])
                var stats: [String: Any] = [:]
                for _ in 0..<100 {
                    stats = try await api.get("/v1/links/summer/stats", headers: SmartLinkTests.admin).object
                    if stats["clicks"] as? Int == 2 { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(stats["clicks"] as? Int == 2 && stats["qrScans"] as? Int == 1, "\(stats)")
                let page = try await api.get("/v1/links/summer/stats.html", headers: SmartLinkTests.admin)
                #expect(page.text.contains("2 clicks by people (1 of them from the QR code)"))

                #expect(try await api.get("/v1/links/summer/qr").status == .unauthorized)
                #expect(try await api.get("/v1/links/nosuch/qr", headers: SmartLinkTests.admin).status == .notFound)
                for (query, parameter) in [
                    ("format=gif", "format"), ("size=10", "size"), ("size=99999", "size"), ("size=big", "size"),
                    ("margin=-1", "margin"), ("margin=17", "margin"), ("level=X", "level"),
                ] {
                    let refused = try await api.get("/v1/links/summer/qr?\(query)", headers: SmartLinkTests.admin)
                    #expect(refused.status == .badRequest, "\(query)")
                    #expect(refused.object["error"] as? String == "invalid_parameter")
                    #expect(refused.object["parameter"] as? String == parameter, "\(query)")
                }
            }
        }
    }
}
