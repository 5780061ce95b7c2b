@testable import DeepLinksQR
import Foundation
import HTTPTypes
import Testing

import DeepLinksTestSupport
import DeepLinksTesting

/// The QR encoder, checked against the standard's worked example and capacities, and by a real decoder (zbar's
/// `zbarimg`, Debian's zbar-tools) reading back every symbol: a few hundred random links at every level and a payload
/// forcing each version from 1 to 40.
@Suite struct QRCodeTests {
    /// The worked example most references use (version 1-M, "HELLO WORLD" in alphanumeric mode): these sixteen
    /// data codewords give these ten error-correction codewords.
    @Test func reedSolomonGivesTheStandardsExample() {
        let data: [UInt8] = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17]
        let ecc = QRCode.ReedSolomon.remainder(data, divisor: QRCode.ReedSolomon.divisor(degree: 10))
        #expect(ecc == [196, 35, 39, 119, 235, 215, 231, 226, 93, 23])
    }

    /// Byte-mode capacities from the standard's table 7.
    @Test(arguments: [
        (1, QRCode.ErrorCorrection.low, 17), (1, .medium, 14), (1, .quartile, 11), (1, .high, 7), (2, .medium, 26),
        (7, .low, 154), (10, .medium, 213), (10, .high, 119), (20, .quartile, 482), (27, .high, 625), (25, .low, 1273),
        (40, .low, 2953), (40, .medium, 2331), (40, .quartile, 1663), (40, .high, 1273),
    ])
    func capacitiesAreTheStandards(_ version: Int, _ level: QRCode.ErrorCorrection, _ bytes: Int) {
        #expect(QRCode.capacity(version: version, level: level) == bytes)
    }

    @Test func theSmallestVersionIsChosenAndTooMuchIsRefused() throws {
        #expect(try QRCode(bytes: Array(repeating: 65, count: 14), level: .medium).version == 1)
        #expect(try QRCode(bytes: Array(repeating: 65, count: 15), level: .medium).version == 2)
        let tooLong = Array(repeating: UInt8(65), count: 1274)
        #expect(throws: QRCode.TooLong.self) { try QRCode(bytes: tooLong, level: .high) }
        #expect(try QRCode(bytes: tooLong, level: .low).version == 26, "25-L holds 1,273 bytes")
    }

    /// The SVG's path covers exactly the dark modules, shifted by the margin.
    @Test func theSVGDrawsEveryDarkModuleAndNoOther() throws {
        let code = try QRCode(text: "https://links.example.com/summer?qr=1", level: .quartile)
        let image = QRImage(code: code, margin: 2)
        let svg = image.svg(pixels: 300)
        let side = image.modules * (300 / image.modules)  // whole pixels per module
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(side)\" height=\"\(side)\""))
        let path = try #require(svg.split(separator: "d=\"").last?.split(separator: "\"").first)
        var drawn = Set<[Int]>()
        for run in path.split(separator: "z") {
            let numbers = run.split(whereSeparator: { "Mhv ".contains($0) }).compactMap { Int($0) }
            let (x, y, length) = (numbers[0], numbers[1], numbers[2])
            for offset in 0..<length { drawn.insert([x + offset, y]) }
        }
        var dark = Set<[Int]>()
        for y in 0..<code.size {
            for x in 0..<code.size where code[x, y] { dark.insert([x + 2, y + 2]) }
        }
        #expect(drawn == dark)
    }

    /// Every symbol generated reads back, with zbar, to the bytes it was made of: links of random shapes at
    /// random levels, and one payload per version 1-40 (its capacity at a level, so that version is the one
    /// chosen), each as the PNG the API serves.
    @Test func zbarReadsBackEverySymbol() async throws {
        guard let zbarimg = ZBar.path() else {
            try #require(ProcessInfo.processInfo.environment["CI"] == nil, "CI must have zbarimg (zbar-tools)")
            print("skipped: zbarimg (Debian's zbar-tools) is not installed")
            return
        }
        var generator = SplitMix64(seed: 0x5152_434F_4445)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_".utf8)
        func word(_ length: Int) -> String {
            String(
                decoding: (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] },
                as: UTF8.self
            )
        }
        var cases: [(text: String, level: QRCode.ErrorCorrection)] = []
        for _ in 0..<300 {
            let host = ["links.example.com", "go.example.org", "l.shop.example"][Int(generator.next() % 3)]
            var link = "https://\(host)/\(word(4 + Int(generator.next() % 12)))"
            if generator.next() % 2 == 0 { link += "?qr=1&utm_source=\(word(Int(generator.next() % 40) + 1))" }
            cases.append((link, QRCode.ErrorCorrection.allCases[Int(generator.next() % 4)]))
        }
        for version in 1...40 {
            let level = QRCode.ErrorCorrection.allCases[version % 4]
            cases.append((word(QRCode.capacity(version: version, level: level)), level))
        }

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var versions = Set<Int>()
        var files: [String] = []
        for (index, item) in cases.enumerated() {
            let code = try QRCode(text: item.text, level: item.level)
            versions.insert(code.version)
            let image = QRImage(code: code, margin: 4)
            let file = folder.appendingPathComponent("\(index).png").path
            try Data(image.png(pixels: image.modules * 3)).write(to: URL(fileURLWithPath: file))
            files.append(file)
        }
        // One zbarimg for every file (XML names each file), on a thread of its own: a test that blocks the
        // concurrency pool for seconds starves the others running beside it.
        let paths = files
        let xml = try await ZBar.onThread {
            try ZBar.run(zbarimg, ["--xml", "-q", "-Sdisable", "-Sqrcode.enable"] + paths)
        }
        let read = ZBar.decoded(xml)
        for (index, item) in cases.enumerated() {
            #expect(read[files[index]] == item.text, "case \(index): level \(item.level.rawValue)")
        }
        #expect(versions == Set(1...40))
    }
}
