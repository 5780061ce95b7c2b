/// A ``QRCode`` drawn as an image: black modules on white, with a quiet zone of `margin` modules around them (the
/// standard asks for 4; scanners read 2 on a plain background).
package struct QRImage {
    package let code: QRCode
    package let margin: Int

    package init(code: QRCode, margin: Int) {
        self.code = code
        self.margin = margin
    }

    /// Modules per side, the quiet zone included.
    var modules: Int { code.size + 2 * margin }

    func isDark(_ x: Int, _ y: Int) -> Bool {
        let (x, y) = (x - margin, y - margin)
        return x >= 0 && y >= 0 && x < code.size && y < code.size && code[x, y]
    }

    /// An SVG of `pixels` (rounded down to whole pixels per module), one path of horizontal runs, crisp edges.
    package func svg(pixels: Int) -> String {
        let side = modules
        let scale = max(1, pixels / side)
        var path = ""
        for y in 0..<side {
            var x = 0
            while x < side {
                guard isDark(x, y) else {
                    x += 1
                    continue
                }
                var run = 1
                while x + run < side, isDark(x + run, y) { run += 1 }
                path += "M\(x) \(y)h\(run)v1h-\(run)z"
                x += run
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(side * scale)" height="\(side * scale)" \
            viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges"><rect width="\(side)" height="\(side)" \
            fill="#fff"/><path fill="#000" d="\(path)"/></svg>

            """
    }

    /// A PNG of `pixels` (rounded down to whole pixels per module): one-bit greyscale, the image data in stored
    /// deflate blocks (a QR image is small; no compressor is needed to read it).
    package func png(pixels: Int) -> [UInt8] {
        let side = modules
        let scale = max(1, pixels / side)
        let width = side * scale
        let rowBytes = (width + 7) / 8
        var raw: [UInt8] = []
        raw.reserveCapacity((rowBytes + 1) * width)
        for moduleRow in 0..<side {
            // One row of pixels per row of modules, repeated `scale` times.
            var row = [UInt8](repeating: 0xFF, count: rowBytes)  // white
            for x in 0..<width where isDark(x / scale, moduleRow) {
                row[x / 8] &= ~(0x80 >> UInt8(x % 8))
            }
            for _ in 0..<scale {
                raw.append(0)  // filter: none
                raw += row
            }
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        func chunk(_ type: String, _ data: [UInt8]) {
            png += Self.bigEndian(UInt32(data.count))
            let body = Array(type.utf8) + data
            png += body
            png += Self.bigEndian(CRC32.checksum(body))
        }
        // Width, height, bit depth 1, colour type 0 (greyscale), compression, filter, no interlace.
        chunk("IHDR", Self.bigEndian(UInt32(width)) + Self.bigEndian(UInt32(width)) + [1, 0, 0, 0, 0])
        chunk("IDAT", Self.zlibStored(raw))
        chunk("IEND", [])
        return png
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// A zlib stream of `data` in stored (uncompressed) deflate blocks of at most 65,535 bytes.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let length = min(65_535, data.count - start)
            let last: UInt8 = start + length == data.count ? 1 : 0
            out += [last, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8 & 0xFF)]
            out += data[start..<start + length]
            start += length
        } while start < data.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + bigEndian(b << 16 | a)
    }

    enum CRC32 {
        static let table: [UInt32] = (0..<256).map { value in
            var crc = UInt32(value)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
            return crc
        }

        static func checksum(_ bytes: [UInt8]) -> UInt32 {
            ~bytes.reduce(UInt32.max) { crc, byte in table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
    }
}
