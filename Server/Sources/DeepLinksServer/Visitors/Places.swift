import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a click came from, as precisely as the source knows: a country (ISO 3166-1 alpha-2), and where the data
/// has them, a region (ISO 3166-2 subdivision code, or its English name) and a city (English name).
struct Place: Sendable, Hashable {
    var country: String
    var region: String?
    var city: String?
}

/// An offline source of places by address: an MMDB file (``MMDBReader``) or Debian's `tor-geoipdb` country ranges
/// (``TorGeoIP``). Looked up in memory on every counted click; never a network call.
protocol PlaceSource: Sendable {
    func place(of address: IPAddress) -> Place?
}

/// The `--geoip-database` setting, loaded: the MMDB file it names; with no setting, Debian's `tor-geoipdb` where it
/// is installed; with `none`, nothing. Loaded once per process and path, off the request path (Tor's 660,000 ranges
/// take about 3 s in a debug build): a click before it is loaded has no place.
enum Places {
    static let torIPv4 = "/usr/share/tor/geoip", torIPv6 = "/usr/share/tor/geoip6"

    /// The sources loaded, by path; nil while one is being loaded.
    private static let loaded = Mutex<[String: (any PlaceSource)?]>([:])
    /// Read once: the lookup on every click asks no file system.
    private static let torInstalled = FileManager.default.fileExists(atPath: torIPv4)

    /// The source `setting` names, once loaded; nil until then, and for `none`. Debian's ranges are read in the
    /// background the first time they are asked for (a server that never counts a click never reads them).
    static func source(_ setting: String?) -> (any PlaceSource)? {
        let path = key(setting)
        let found = loaded.withLock { $0[path] }
        if found == nil, path == torIPv4 {
            Task.detached(priority: .background) { try? load(setting) }
        }
        return found ?? nil
    }

    private static func key(_ setting: String?) -> String {
        guard let setting, !setting.isEmpty else { return torInstalled ? torIPv4 : "none" }
        return setting
    }

    /// Loads the source `setting` names, once per process (a no-op when loaded, being loaded, or `none`). Throws
    /// for a file that cannot be read or is no MMDB: the server says so at start.
    static func load(_ setting: String?) throws {
        let path = key(setting)
        guard path != "none" else { return }
        let claimed = loaded.withLock { sources in
            guard sources[path] == nil else { return false }
            sources[path] = .some(nil)
            return true
        }
        guard claimed else { return }
        do {
            let made: any PlaceSource =
                path == torIPv4 ? try TorGeoIP(ipv4: torIPv4, ipv6: torIPv6) : try MMDBReader(path: path)
            loaded.withLock { $0[path] = made }
        } catch {
            _ = loaded.withLock { $0.removeValue(forKey: path) }
            throw error
        }
    }
}

/// A malformed or unreadable place database: what is wrong, and where.
struct PlaceDatabaseError: Error, CustomStringConvertible {
    let description: String
}

/// Debian's `tor-geoipdb`: `start,end,CC` lines, IPv4 as integers and IPv6 as addresses (the IPFire Location
/// database, converted by Tor's geoip-db-tool), held as sorted ranges and searched by halves.
struct TorGeoIP: PlaceSource {
    private struct Range {
        let start: (UInt64, UInt64)
        let end: (UInt64, UInt64)
        let country: String
    }

    private let v4: [Range]
    private let v6: [Range]

    init(ipv4: String, ipv6: String) throws {
        v4 = try Self.read(ipv4, ipv6: false)
        v6 = FileManager.default.fileExists(atPath: ipv6) ? try Self.read(ipv6, ipv6: true) : []
    }

    func place(of address: IPAddress) -> Place? {
        let key = Self.key(address.bytes)
        let ranges = address.bytes.count == 4 ? v4 : v6
        var (low, high) = (0, ranges.count)
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].start <= key { low = middle + 1 } else { high = middle }
        }
        guard low > 0, key <= ranges[low - 1].end else { return nil }
        return Place(country: ranges[low - 1].country)
    }

    /// An address's bytes as two 64-bit halves (an IPv4 address in the low half).
    private static func key(_ bytes: [UInt8]) -> (UInt64, UInt64) {
        let padded = [UInt8](repeating: 0, count: 16 - bytes.count) + bytes
        let high = padded[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let low = padded[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return (high, low)
    }

    /// Reads the file in one pass over its bytes (no string per field: 660,000 lines in well under a second in a
    /// release build); an IPv6 bound is parsed by `inet_pton` from a stack buffer.
    private static func read(_ path: String, ipv6: Bool) throws -> [Range] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PlaceDatabaseError(description: "\(path): cannot be read")
        }
        var ranges: [Range] = []
        ranges.reserveCapacity(data.count / 24)
        var failure: Int?
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            var address = [UInt8](repeating: 0, count: 16)
            var text = [CChar](repeating: 0, count: 64)
            func bound(_ start: Int, _ end: Int) -> (UInt64, UInt64)? {
                guard ipv6 else {
                    var value: UInt64 = 0
                    for index in start..<end {
                        let digit = bytes[index]
                        guard (0x30...0x39).contains(digit), value <= UInt64(UInt32.max) else { return nil }
                        value = value * 10 + UInt64(digit - 0x30)
                    }
                    return end > start && value <= UInt64(UInt32.max) ? (0, value) : nil
                }
                guard end - start < text.count, end > start else { return nil }
                for index in start..<end { text[index - start] = CChar(bitPattern: bytes[index]) }
                text[end - start] = 0
                guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
                return key(address)
            }
            var line = 0
            var start = 0
            while start < bytes.count, failure == nil {
                var end = start
                while end < bytes.count, bytes[end] != 0x0A { end += 1 }
                line += 1
                defer { start = end + 1 }
                guard end > start, bytes[start] != UInt8(ascii: "#") else { continue }
                var commas: [Int] = []
                for index in start..<end where bytes[index] == UInt8(ascii: ",") { commas.append(index) }
                guard commas.count == 2, let first = bound(start, commas[0]),
                    let last = bound(commas[0] + 1, commas[1]),
                    first <= last, end - commas[1] == 3
                else {
                    failure = line
                    continue
                }
                let country = (bytes[commas[1] + 1], bytes[commas[1] + 2])
                // `??`: the range is known to belong to no country.
                let letters: ClosedRange<UInt8> = 0x41...0x5A
                guard letters.contains(country.0), letters.contains(country.1) else { continue }
                ranges.append(
                    Range(start: first, end: last, country: String(decoding: [country.0, country.1], as: UTF8.self))
                )
            }
        }
        if let failure { throw PlaceDatabaseError(description: "\(path) line \(failure): not start,end,CC") }
        ranges.sort { $0.start < $1.start }
        return ranges
    }
}

/// A MaxMind DB file (GeoLite2, DB-IP Lite, or any writer's): its binary search tree walked bit by bit, the record
/// it ends at decoded from the data section, as the MaxMind DB format 2.0 specifies. The whole file is read into
/// memory once; every read is bounds-checked, so a malformed file answers nil rather than crashing, and one whose
/// metadata is wrong is refused when loaded. Decoded places are kept per record (a country database has a few
/// hundred).
struct MMDBReader: PlaceSource {
    let bytes: [UInt8]
    let nodeCount: Int
    let recordSize: Int
    let ipVersion: Int
    let databaseType: String
    private let dataStart: Int
    private let ipv4Start: Int
    private let cache = Cache()

    final class Cache: Sendable {
        let places = Mutex<[Int: Place?]>([:])
    }

    static let metadataMarker: [UInt8] = [0xAB, 0xCD, 0xEF] + Array("MaxMind.com".utf8)

    init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PlaceDatabaseError(description: "\(path): cannot be read")
        }
        try self.init(bytes: [UInt8](data), name: path)
    }

    init(bytes: [UInt8], name: String = "the MMDB file") throws {
        self.bytes = bytes
        let marker = Self.metadataMarker
        var found: Int?
        var index = bytes.count - marker.count
        let floor = max(0, bytes.count - 128 * 1024)
        while index >= floor {
            if bytes[index] == marker[0], bytes[index..<index + marker.count].elementsEqual(marker) {
                found = index + marker.count
                break
            }
            index -= 1
        }
        guard let metadataStart = found else {
            throw PlaceDatabaseError(description: "\(name): no MaxMind DB metadata (not an MMDB file)")
        }
        var decoder = MMDBDecoder(bytes: bytes, pointerBase: metadataStart)
        guard case .map(let metadata)? = try? decoder.value(at: metadataStart) else {
            throw PlaceDatabaseError(description: "\(name): its metadata is not a map")
        }
        guard case .unsigned(let nodes)? = metadata["node_count"], case .unsigned(let size)? = metadata["record_size"],
            case .unsigned(let version)? = metadata["ip_version"], [24, 28, 32].contains(size),
            [4, 6].contains(version),
            nodes > 0, nodes < UInt64(Int32.max)
        else {
            throw PlaceDatabaseError(
                description: "\(name): node_count, record_size (24, 28 or 32) or ip_version (4 or 6) missing or wrong"
            )
        }
        (nodeCount, recordSize, ipVersion) = (Int(nodes), Int(size), Int(version))
        if case .string(let type)? = metadata["database_type"] { databaseType = type } else { databaseType = "" }
        let treeSize = nodeCount * recordSize * 2 / 8
        dataStart = treeSize + 16
        guard dataStart <= metadataStart - marker.count else {
            throw PlaceDatabaseError(description: "\(name): its search tree runs past its data")
        }
        // An IPv4 address in an IPv6 tree is ::a.b.c.d: the node 96 zero bits down.
        var node = 0
        if ipVersion == 6 {
            for _ in 0..<96 where node < nodeCount {
                node = Self.record(bytes, node: node, right: false, size: recordSize)
            }
        }
        ipv4Start = node
    }

    /// Record `right` (or left) of `node`.
    private static func record(_ bytes: [UInt8], node: Int, right: Bool, size: Int) -> Int {
        let base = node * size * 2 / 8
        guard base + size * 2 / 8 <= bytes.count else { return Int.max }
        func read(_ from: Int, _ count: Int) -> Int {
            bytes[from..<from + count].reduce(0) { $0 << 8 | Int($1) }
        }
        switch size {
        case 24: return read(base + (right ? 3 : 0), 3)
        case 28:
            let middle = Int(bytes[base + 3])
            return right ? (middle & 0x0F) << 24 | read(base + 4, 3) : (middle & 0xF0) << 20 | read(base, 3)
        default: return read(base + (right ? 4 : 0), 4)
        }
    }

    /// Where in the file the data record of `address` starts, if the tree has one.
    func recordOffset(of address: IPAddress) -> Int? {
        let bits = address.bytes
        guard bits.count == 4 || ipVersion == 6 else { return nil }
        var node = bits.count == 4 ? ipv4Start : 0
        for index in 0..<(bits.count * 8) {
            guard node < nodeCount else { break }
            let bit = bits[index / 8] >> (7 - UInt8(index % 8)) & 1
            node = Self.record(bytes, node: node, right: bit == 1, size: recordSize)
        }
        guard node > nodeCount, node != Int.max else { return nil }
        return dataStart + (node - nodeCount - 16)
    }

    /// The data record of `address`, if the tree has one.
    func record(of address: IPAddress) -> [String: MMDBValue]? {
        guard let offset = recordOffset(of: address) else { return nil }
        var decoder = MMDBDecoder(bytes: bytes, pointerBase: dataStart)
        guard case .map(let record)? = try? decoder.value(at: offset) else { return nil }
        return record
    }

    /// The place of `address`: the tree walked, the record decoded once per record (at most 100,000 kept).
    func place(of address: IPAddress) -> Place? {
        guard let offset = recordOffset(of: address) else { return nil }
        if let known = cache.places.withLock({ $0[offset] }) { return known }
        let found = record(of: address).flatMap(Self.place)
        cache.places.withLock { places in
            if places.count >= 100_000 { places.removeAll() }
            places[offset] = .some(found)
        }
        return found
    }

    /// GeoLite2's and DB-IP's layout: `country.iso_code`, `subdivisions[0].iso_code` (or its English name),
    /// `city.names.en`.
    static func place(_ record: [String: MMDBValue]) -> Place? {
        guard case .map(let country)? = record["country"] ?? record["registered_country"],
            case .string(let code)? = country["iso_code"], code.count == 2
        else { return nil }
        var place = Place(country: code.uppercased())
        if case .array(let subdivisions)? = record["subdivisions"], case .map(let first)? = subdivisions.first {
            place.region = first["iso_code"]?.text ?? first["names"]?.english
        }
        place.city = record["city"]?.englishName
        return place
    }
}

/// A value of an MMDB data section.
indirect enum MMDBValue: Sendable, Equatable {
    case string(String)
    case double(Double)
    case bytes([UInt8])
    case unsigned(UInt64)
    case signed(Int64)
    case map([String: MMDBValue])
    case array([MMDBValue])
    case bool(Bool)

    var text: String? { if case .string(let text) = self { text } else { nil } }
    var english: String? { if case .map(let names) = self { names["en"]?.text } else { nil } }
    var englishName: String? { if case .map(let map) = self { map["names"]?.english } else { nil } }
}

/// The MMDB data section's decoder: a control byte (type, size), then the value; pointers resolved against the
/// data section's start (the metadata's own start for the metadata).
private struct MMDBDecoder {
    let bytes: [UInt8]
    let pointerBase: Int
    var depth = 0

    struct Malformed: Error {}

    init(bytes: [UInt8], pointerBase: Int) {
        (self.bytes, self.pointerBase) = (bytes, pointerBase)
    }

    mutating func value(at offset: Int) throws -> MMDBValue {
        var position = offset
        return try decode(&position)
    }

    private func byte(_ position: Int) throws -> Int {
        guard position >= 0, position < bytes.count else { throw Malformed() }
        return Int(bytes[position])
    }

    private func take(_ position: inout Int, _ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, position >= 0, position + count <= bytes.count else { throw Malformed() }
        defer { position += count }
        return bytes[position..<position + count]
    }

    mutating func decode(_ position: inout Int) throws -> MMDBValue {
        depth += 1
        defer { depth -= 1 }
        guard depth < 64 else { throw Malformed() }
        let control = try byte(position)
        position += 1
        var type = control >> 5
        if type == 1 {
            let size = (control >> 3) & 0x3
            let low = control & 0x7
            let extra = try take(&position, size + 1).reduce(0) { $0 << 8 | Int($1) }
            let pointer: Int
            switch size {
            case 0: pointer = low << 8 | extra
            case 1: pointer = (low << 16 | extra) + 2048
            case 2: pointer = (low << 24 | extra) + 526_336
            default: pointer = extra
            }
            var target = pointerBase + pointer
            return try decode(&target)
        }
        if type == 0 {
            type = 7 + (try byte(position))
            position += 1
        }
        var size = control & 0x1F
        if size >= 29 {
            let count = size - 28
            let extra = try take(&position, count).reduce(0) { $0 << 8 | Int($1) }
            size = [29, 285, 65_821][count - 1] + extra
        }
        func number(_ bytes: ArraySlice<UInt8>) -> UInt64 { bytes.reduce(0) { $0 << 8 | UInt64($1) } }
        switch type {
        case 2: return .string(String(decoding: try take(&position, size), as: UTF8.self))
        case 3:
            guard size == 8 else { throw Malformed() }
            return .double(Double(bitPattern: number(try take(&position, 8))))
        case 4: return .bytes(Array(try take(&position, size)))
        case 5, 6, 9:
            guard size <= [5: 2, 6: 4, 9: 8][type]! else { throw Malformed() }
            return .unsigned(number(try take(&position, size)))
        case 10: return .bytes(Array(try take(&position, size)))
        case 8:
            guard size <= 4 else { throw Malformed() }
            let raw = UInt32(truncatingIfNeeded: number(try take(&position, size)))
            return .signed(Int64(Int32(bitPattern: size == 4 ? raw : raw)))
        case 7:
            var map: [String: MMDBValue] = [:]
            for _ in 0..<size {
                guard case .string(let key) = try decode(&position) else { throw Malformed() }
                map[key] = try decode(&position)
            }
            return .map(map)
        case 11:
            var array: [MMDBValue] = []
            for _ in 0..<size { array.append(try decode(&position)) }
            return .array(array)
        case 14: return .bool(size != 0)
        case 15:
            guard size == 4 else { throw Malformed() }
            return .double(Double(Float(bitPattern: UInt32(number(try take(&position, 4))))))
        default: throw Malformed()
        }
    }
}
