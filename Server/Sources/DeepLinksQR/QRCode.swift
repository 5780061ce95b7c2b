/// A QR Code symbol (ISO/IEC 18004) of some bytes, in byte mode, at an error-correction level, in the smallest
/// version (1 to 40) that holds them. Written here because no QR package is available to the project; checked by
/// decoding generated symbols with a real decoder (zbar, in `QRCodeTests`).
///
/// The steps are the standard's: the data bits (mode, count, bytes, terminator, padding), Reed-Solomon error
/// correction per block and the blocks interleaved, the function patterns (finders, timing, alignment, format and
/// version information), the codewords placed in the zigzag, and the mask of the eight with the lowest penalty.
public struct QRCode: Sendable, Equatable {
    /// How much of the symbol may be damaged and still read: about 7, 15, 25 and 30 %.
    public enum ErrorCorrection: String, Sendable, CaseIterable {
        case low = "L", medium = "M", quartile = "Q", high = "H"

        /// The two format-information bits of the level.
        var formatBits: Int {
            switch self {
            case .low: 1
            case .medium: 0
            case .quartile: 3
            case .high: 2
            }
        }

        var row: Int {
            switch self {
            case .low: 0
            case .medium: 1
            case .quartile: 2
            case .high: 3
            }
        }
    }

    public struct TooLong: Error, Sendable, CustomStringConvertible {
        public let bytes: Int
        public let level: ErrorCorrection
        public var description: String {
            "\(bytes) bytes do not fit in a QR code at level \(level.rawValue) (at most \(QRCode.capacity(version: 40, level: level)))"
        }
    }

    public let version: Int
    public let level: ErrorCorrection
    public let mask: Int
    /// Modules per side: 17 + 4 × version.
    public let size: Int
    /// Row-major, true for dark.
    private let modules: [Bool]

    /// Whether the module at column `x`, row `y` is dark.
    public subscript(x: Int, y: Int) -> Bool { modules[y * size + x] }

    /// The symbol of `bytes` at `level`, in the smallest version that holds them.
    public init(bytes: [UInt8], level: ErrorCorrection = .medium) throws(TooLong) {
        guard let version = (1...40).first(where: { bytes.count <= Self.capacity(version: $0, level: level) }) else {
            throw TooLong(bytes: bytes.count, level: level)
        }
        var symbol = Symbol(version: version)
        symbol.drawFunctionPatterns()
        symbol.drawCodewords(Self.codewords(bytes, version: version, level: level))
        // The mask with the lowest penalty; format information is part of what the penalty sees.
        var best = (mask: 0, penalty: Int.max)
        for mask in 0..<8 {
            symbol.apply(mask: mask)
            symbol.drawFormatBits(level: level, mask: mask)
            let penalty = symbol.penalty()
            if penalty < best.penalty { best = (mask, penalty) }
            symbol.apply(mask: mask)  // masking is its own inverse
        }
        symbol.apply(mask: best.mask)
        symbol.drawFormatBits(level: level, mask: best.mask)
        self.version = version
        self.level = level
        self.mask = best.mask
        size = symbol.size
        modules = symbol.dark
    }

    public init(text: String, level: ErrorCorrection = .medium) throws(TooLong) {
        try self.init(bytes: Array(text.utf8), level: level)
    }

    // MARK: Capacity

    /// Error-correction codewords per block, by level (L, M, Q, H) and version (index 0 unused).
    static let eccPerBlock: [[Int]] = [
        [
            0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28,
            30,
            30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        [
            0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28,
            28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        ],
        [
            0, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28,
            30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        [
            0, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30,
            30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
    ]

    /// Error-correction blocks, by level and version.
    static let blocks: [[Int]] = [
        [
            0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17,
            18, 19, 19, 20, 21, 22, 24, 25,
        ],
        [
            0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29,
            31, 33, 35, 37, 38, 40, 43, 45, 47, 49,
        ],
        [
            0, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38,
            40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68,
        ],
        [
            0, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45,
            48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81,
        ],
    ]

    /// Modules left for codewords once the function patterns are drawn.
    static func rawDataModules(version: Int) -> Int {
        var result = (16 * version + 128) * version + 64
        if version >= 2 {
            let alignments = version / 7 + 2
            result -= (25 * alignments - 10) * alignments - 55
            if version >= 7 { result -= 36 }
        }
        return result
    }

    static func dataCodewords(version: Int, level: ErrorCorrection) -> Int {
        rawDataModules(version: version) / 8 - eccPerBlock[level.row][version] * blocks[level.row][version]
    }

    /// The most bytes a version holds at a level, in byte mode.
    static func capacity(version: Int, level: ErrorCorrection) -> Int {
        (dataCodewords(version: version, level: level) * 8 - 4 - countBits(version: version)) / 8
    }

    /// Bits of the byte-mode character count.
    static func countBits(version: Int) -> Int { version <= 9 ? 8 : 16 }

    // MARK: Codewords

    /// The data codewords (mode, count, bytes, terminator, padding) followed by their error correction,
    /// interleaved across blocks.
    static func codewords(_ bytes: [UInt8], version: Int, level: ErrorCorrection) -> [UInt8] {
        let capacity = dataCodewords(version: version, level: level)
        var bits = BitBuffer()
        bits.append(0b0100, count: 4)  // byte mode
        bits.append(bytes.count, count: countBits(version: version))
        for byte in bytes { bits.append(Int(byte), count: 8) }
        bits.append(0, count: min(4, capacity * 8 - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var data = bits.bytes
        var pad: UInt8 = 0xEC
        while data.count < capacity {
            data.append(pad)
            pad ^= 0xEC ^ 0x11
        }

        let blockCount = blocks[level.row][version]
        let eccLength = eccPerBlock[level.row][version]
        let rawCodewords = rawDataModules(version: version) / 8
        let shortBlocks = blockCount - rawCodewords % blockCount
        let shortLength = rawCodewords / blockCount
        let divisor = ReedSolomon.divisor(degree: eccLength)
        var split: [[UInt8]] = []
        var start = 0
        for index in 0..<blockCount {
            let length = shortLength - eccLength + (index < shortBlocks ? 0 : 1)
            var block = Array(data[start..<start + length])
            start += length
            let ecc = ReedSolomon.remainder(block, divisor: divisor)
            if index < shortBlocks { block.append(0) }  // a place holder, skipped when interleaving
            split.append(block + ecc)
        }
        var result: [UInt8] = []
        result.reserveCapacity(rawCodewords)
        for position in 0..<split[0].count {
            for (index, block) in split.enumerated() where position != shortLength - eccLength || index >= shortBlocks {
                result.append(block[position])
            }
        }
        return result
    }

    struct BitBuffer {
        private(set) var bits: [Bool] = []
        var count: Int { bits.count }

        mutating func append(_ value: Int, count: Int) {
            for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
        }

        var bytes: [UInt8] {
            stride(from: 0, to: bits.count, by: 8).map { start in
                bits[start..<start + 8].reduce(0) { $0 << 1 | ($1 ? 1 : 0) }
            }
        }
    }

    /// Reed-Solomon over GF(2⁸) with the QR polynomial x⁸ + x⁴ + x³ + x² + 1 (0x11D).
    enum ReedSolomon {
        static func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
            var z = 0
            for bit in stride(from: 7, through: 0, by: -1) {
                z = (z << 1) ^ ((z >> 7) * 0x11D)
                z ^= Int((y >> UInt8(bit)) & 1) * Int(x)
            }
            return UInt8(z)
        }

        /// The generator polynomial of `degree`, highest coefficient first, its leading 1 left out.
        static func divisor(degree: Int) -> [UInt8] {
            var result = [UInt8](repeating: 0, count: degree)
            result[degree - 1] = 1
            var root: UInt8 = 1
            for _ in 0..<degree {
                for index in 0..<degree {
                    result[index] = multiply(result[index], root)
                    if index + 1 < degree { result[index] ^= result[index + 1] }
                }
                root = multiply(root, 0x02)
            }
            return result
        }

        static func remainder(_ data: [UInt8], divisor: [UInt8]) -> [UInt8] {
            var result = [UInt8](repeating: 0, count: divisor.count)
            for byte in data {
                let factor = byte ^ result.removeFirst()
                result.append(0)
                for index in result.indices { result[index] ^= multiply(divisor[index], factor) }
            }
            return result
        }
    }
}

/// The grid while it is drawn: dark modules, and which modules belong to function patterns.
private struct Symbol {
    let version: Int
    let size: Int
    var dark: [Bool]
    var function: [Bool]

    init(version: Int) {
        self.version = version
        size = 17 + 4 * version
        dark = Array(repeating: false, count: size * size)
        function = dark
    }

    mutating func set(_ x: Int, _ y: Int, _ isDark: Bool) {
        dark[y * size + x] = isDark
        function[y * size + x] = true
    }

    mutating func drawFunctionPatterns() {
        for index in 0..<size {
            set(6, index, index % 2 == 0)
            set(index, 6, index % 2 == 0)
        }
        for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 where (0..<size).contains(x + dx) && (0..<size).contains(y + dy) {
                    let distance = max(abs(dx), abs(dy))
                    set(x + dx, y + dy, distance != 2 && distance != 4)
                }
            }
        }
        let positions = alignmentPositions
        for (i, x) in positions.enumerated() {
            for (j, y) in positions.enumerated() {
                let last = positions.count - 1
                // Not over the finders.
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                for dy in -2...2 {
                    for dx in -2...2 { set(x + dx, y + dy, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        drawFormatBits(level: .medium, mask: 0)  // reserves the area; the real bits come with the mask
        drawVersionBits()
    }

    /// Centres of the alignment patterns, the same list for rows and columns.
    var alignmentPositions: [Int] {
        guard version > 1 else { return [] }
        let count = version / 7 + 2
        let step = (version * 8 + count * 3 + 5) / (count * 4 - 4) * 2
        var result = [6]
        var position = size - 7
        while result.count < count {
            result.insert(position, at: 1)
            position -= step
        }
        return result
    }

    mutating func drawFormatBits(level: QRCode.ErrorCorrection, mask: Int) {
        let data = level.formatBits << 3 | mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let bits = (data << 10 | remainder) ^ 0x5412
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        for index in 0...5 { set(8, index, bit(index)) }
        set(8, 7, bit(6))
        set(8, 8, bit(7))
        set(7, 8, bit(8))
        for index in 9..<15 { set(14 - index, 8, bit(index)) }
        for index in 0..<8 { set(size - 1 - index, 8, bit(index)) }
        for index in 8..<15 { set(8, size - 15 + index, bit(index)) }
        set(8, size - 8, true)  // the dark module
    }

    mutating func drawVersionBits() {
        guard version >= 7 else { return }
        var remainder = version
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        let bits = version << 12 | remainder
        for index in 0..<18 {
            let isDark = (bits >> index) & 1 == 1
            let a = size - 11 + index % 3
            let b = index / 3
            set(a, b, isDark)
            set(b, a, isDark)
        }
    }

    /// The codewords' bits, from the bottom-right corner, in two-module columns going up and down in turn, skipping
    /// function modules and the vertical timing pattern's column.
    mutating func drawCodewords(_ codewords: [UInt8]) {
        var bit = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for vertical in 0..<size {
                for offset in 0..<2 {
                    let x = right - offset
                    let upward = (right + 1) & 2 == 0
                    let y = upward ? size - 1 - vertical : vertical
                    guard !function[y * size + x], bit < codewords.count * 8 else { continue }
                    dark[y * size + x] = (codewords[bit >> 3] >> (7 - UInt8(bit & 7))) & 1 == 1
                    bit += 1
                }
            }
            right -= 2
        }
    }

    mutating func apply(mask: Int) {
        for y in 0..<size {
            for x in 0..<size where !function[y * size + x] {
                let invert: Bool
                switch mask {
                case 0: invert = (x + y) % 2 == 0
                case 1: invert = y % 2 == 0
                case 2: invert = x % 3 == 0
                case 3: invert = (x + y) % 3 == 0
                case 4: invert = (x / 3 + y / 2) % 2 == 0
                case 5: invert = x * y % 2 + x * y % 3 == 0
                case 6: invert = (x * y % 2 + x * y % 3) % 2 == 0
                default: invert = ((x + y) % 2 + x * y % 3) % 2 == 0
                }
                if invert { dark[y * size + x].toggle() }
            }
        }
    }

    /// The standard's four penalties: runs of five or more, 2×2 blocks, finder-like patterns, and imbalance.
    func penalty() -> Int {
        var result = 0
        func module(_ x: Int, _ y: Int) -> Bool { dark[y * size + x] }
        for transposed in [false, true] {
            for line in 0..<size {
                func at(_ index: Int) -> Bool { transposed ? module(line, index) : module(index, line) }
                var run = 1
                for index in 1..<size {
                    if at(index) == at(index - 1) {
                        run += 1
                        if run == 5 { result += 3 } else if run > 5 { result += 1 }
                    } else {
                        run = 1
                    }
                }
                // 1:1:3:1:1 with four light modules on one side (outside the symbol counts as light).
                func light(_ index: Int) -> Bool { index < 0 || index >= size || !at(index) }
                let core = [true, false, true, true, true, false, true]
                for start in 0...(size - 7) {
                    guard (0..<7).allSatisfy({ at(start + $0) == core[$0] }) else { continue }
                    if (1...4).allSatisfy({ light(start - $0) }) || (1...4).allSatisfy({ light(start + 6 + $0) }) {
                        result += 40
                    }
                }
            }
        }
        for y in 0..<size - 1 {
            for x in 0..<size - 1 {
                let color = module(x, y)
                if color == module(x + 1, y), color == module(x, y + 1), color == module(x + 1, y + 1) { result += 3 }
            }
        }
        let darkCount = dark.filter { $0 }.count
        let total = size * size
        let k = (abs(darkCount * 20 - total * 10) + total - 1) / total - 1
        result += k * 10
        return result
    }
}
