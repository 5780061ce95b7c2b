import DeepLinksJSON
@testable import DeepLinksServer
import Foundation
import Testing

/// The offline place sources, checked against readers nobody on the project wrote: MMDB files written in the test
/// by `mmdb-writer` (record sizes 24, 28 and 32; IPv4 and IPv6 trees) and read by MaxMind's `maxminddb` and by
/// ours, address by address; Debian's `tor-geoipdb` against its own lines. No real database is committed.
@Suite struct PlacesTests {
    /// Writes `db-<size>-<version>.mmdb` files into the folder named by argv[1] and prints, per file, what
    /// `maxminddb` reads for each probe address.
    static let writer = #"""
        import json, math, sys
        from netaddr import IPSet
        import mmdb_writer, maxminddb
        folder = sys.argv[1]
        zurich = {"country": {"iso_code": "CH", "names": {"en": "Switzerland", "de": "Schweiz"}},
                  "subdivisions": [{"iso_code": "ZH", "names": {"en": "Zurich"}}],
                  "city": {"names": {"en": "Zürich"}},
                  "location": {"latitude": 47.3769, "longitude": 8.5417, "accuracy_radius": 20},
                  "is_in_european_union": False, "postal": {"code": "8001"}}
        berlin = {"country": {"iso_code": "DE"}, "city": {"names": {"en": "Berlin"}},
                  "subdivisions": [{"names": {"en": "Land Berlin"}}], "is_in_european_union": True}
        tokyo = {"registered_country": {"iso_code": "JP"}, "traits": [1, 2, 70000, 5000000000, -3]}
        networks = [("192.0.2.0/24", zurich), ("198.51.100.0/25", berlin), ("203.0.113.128/26", tokyo),
                    ("2001:db8:1::/48", zurich), ("2001:db8:2::/64", berlin), ("100.64.0.0/10", berlin)]
        probes = ["192.0.2.1", "192.0.2.255", "198.51.100.1", "198.51.100.200", "203.0.113.130", "203.0.113.1",
                  "100.100.1.1", "8.8.8.8", "2001:db8:1::5", "2001:db8:1:ffff::1", "2001:db8:2::9", "2001:db8:3::1"]
        answers = {}
        for size in (24, 28, 32):
            for version in (4, 6):
                def adjust(self, size=size):
                    self.record_size = size
                    self.data_offset = self.record_size * 2 / 8 * self._node_counter
                mmdb_writer.TreeWriter._adjust_record_size = adjust
                writer = mmdb_writer.MMDBWriter(ip_version=version, database_type="Test-City", languages=["en"],
                                                ipv4_compatible=version == 6)
                for network, record in networks:
                    if version == 4 and ":" in network:
                        continue
                    writer.insert_network(IPSet([network]), record)
                path = f"{folder}/db-{size}-{version}.mmdb"
                writer.to_db_file(path)
                reader = maxminddb.open_database(path, maxminddb.MODE_FILE)
                assert reader.metadata().record_size == size
                answers[path] = {}
                for probe in probes:
                    if version == 4 and ":" in probe:
                        continue
                    try:
                        answers[path][probe] = reader.get(probe)
                    except ValueError:
                        answers[path][probe] = None
        print(json.dumps(answers))
        """#

    static func python(_ script: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A decoded MMDB value as JSON has it (what `maxminddb` gives in Python, dumped as JSON).
    static func plain(_ value: MMDBValue) -> JSONValue {
        switch value {
        case .string(let text): .string(text)
        case .double(let number): .number(number)
        case .bytes(let bytes): .array(bytes.map { .number(Double($0)) })
        case .unsigned(let number): .number(Double(number))
        case .signed(let number): .number(Double(number))
        case .bool(let flag): .bool(flag)
        case .array(let items): .array(items.map(plain))
        case .map(let map): .object(map.mapValues(plain))
        }
    }

    @Test func theMMDBReaderReadsWhatMaxMindsReaderReads() throws {
        let available = try Self.python("import mmdb_writer, maxminddb, netaddr", [])
        guard available.status == 0 else {
            if ProcessInfo.processInfo.environment["CI"] != nil {
                Issue.record("mmdb-writer and maxminddb are missing in CI: \(available.output)")
            } else {
                print("skipped: pip install mmdb-writer maxminddb (\(available.output))")
            }
            return
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mmdb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let written = try Self.python(Self.writer, [folder.path])
        try #require(written.status == 0, "\(written.output)")
        let answers = try #require(try JSONValue.parse(Data(written.output.utf8)).object?.compactMapValues(\.object))
        #expect(answers.count == 6)
        var compared = 0
        for (path, expected) in answers.sorted(by: { $0.key < $1.key }) {
            let reader = try MMDBReader(path: path)
            #expect(reader.databaseType == "Test-City")
            for (probe, record) in expected {
                let address = try #require(IPAddress(probe))
                let ours = reader.record(of: address).map { Self.plain(.map($0)) } ?? .null
                #expect(ours == record, "\(path) \(probe): maxminddb \(record), ours \(ours)")
                compared += 1
            }
            let zurich = reader.place(of: IPAddress("192.0.2.9")!)
            #expect(zurich == Place(country: "CH", region: "ZH", city: "Zürich"), "\(path)")
            #expect(
                reader.place(of: IPAddress("198.51.100.3")!)
                    == Place(country: "DE", region: "Land Berlin", city: "Berlin")
            )
            #expect(reader.place(of: IPAddress("203.0.113.129")!) == Place(country: "JP"), "registered country")
            #expect(reader.place(of: IPAddress("8.8.8.8")!) == nil)
        }
        #expect(compared == 60, "6 files: 8 IPv4 probes each, and 4 IPv6 in the 3 IPv6 trees")
    }

    @Test func aFileThatIsNoMMDBIsRefusedWithItsReasonAndDamageNeverCrashes() throws {
        #expect(throws: PlaceDatabaseError.self) { try MMDBReader(bytes: Array("not a database".utf8)) }
        #expect(throws: PlaceDatabaseError.self) { try MMDBReader(bytes: MMDBReader.metadataMarker) }
        do {
            _ = try MMDBReader(bytes: [UInt8](repeating: 0, count: 64) + MMDBReader.metadataMarker + [0xE0])
            Issue.record("an empty metadata map was accepted")
        } catch let error as PlaceDatabaseError {
            #expect(error.description.contains("node_count"), "\(error)")
        }
        #expect(throws: PlaceDatabaseError.self) { try MMDBReader(path: "/nonexistent/file.mmdb") }
        // A real file, then every byte of its tree and data flipped in turn: lookups answer or not, never crash.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mmdb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        guard try Self.python(Self.writer, [folder.path]).status == 0 else { return }
        let good = [UInt8](try Data(contentsOf: folder.appendingPathComponent("db-24-6.mmdb")))
        let probes = ["192.0.2.1", "198.51.100.1", "2001:db8:1::5", "203.0.113.130"].compactMap { IPAddress($0) }
        for index in stride(from: 0, to: good.count, by: 3) {
            var damaged = good
            damaged[index] ^= 0xA5
            guard let reader = try? MMDBReader(bytes: damaged) else { continue }
            for probe in probes { _ = reader.place(of: probe) }
        }
    }

    @Test func torGeoIPRangesAreReadAsTorWritesThem() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let v4 = folder.appendingPathComponent("geoip"), v6 = folder.appendingPathComponent("geoip6")
        // 192.0.2.0/24 is 3221225984...3221226239.
        try "# comment\n16777216,16777471,AU\n3221225984,3221226239,CH\n3221226240,3221226495,??\n".write(
            to: v4,
            atomically: true,
            encoding: .utf8
        )
        try "2001:db8::,2001:db8:0:ffff:ffff:ffff:ffff:ffff,DE\n".write(to: v6, atomically: true, encoding: .utf8)
        let tor = try TorGeoIP(ipv4: v4.path, ipv6: v6.path)
        #expect(tor.place(of: IPAddress("1.0.0.7")!) == Place(country: "AU"))
        #expect(tor.place(of: IPAddress("192.0.2.200")!) == Place(country: "CH"))
        #expect(tor.place(of: IPAddress("192.0.3.1")!) == nil, "?? is no country")
        #expect(tor.place(of: IPAddress("1.0.1.0")!) == nil)
        #expect(tor.place(of: IPAddress("2001:db8::1")!) == Place(country: "DE"))
        #expect(tor.place(of: IPAddress("2001:db9::1")!) == nil)
        try "1,2\n".write(to: v4, atomically: true, encoding: .utf8)
        #expect(throws: PlaceDatabaseError.self) { try TorGeoIP(ipv4: v4.path, ipv6: v6.path) }

        // Debian's own file, where installed: every range's start and end give its country.
        guard FileManager.default.fileExists(atPath: Places.torIPv4) else {
            if ProcessInfo.processInfo.environment["CI"] != nil { Issue.record("tor-geoipdb is missing in CI") }
            print("skipped: apt-get install tor-geoipdb")
            return
        }
        let debian = try TorGeoIP(ipv4: Places.torIPv4, ipv6: Places.torIPv6)
        let lines = try String(contentsOfFile: Places.torIPv4, encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("#") }
        for line in stride(from: 0, to: lines.count, by: max(1, lines.count / 500)).map({ lines[$0] }) {
            let fields = line.split(separator: ",")
            guard fields.count == 3, fields[2] != "??", let start = UInt32(fields[0]), let end = UInt32(fields[1])
            else {
                continue
            }
            for value in [start, end] {
                let address = IPAddress.v4([24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) })
                #expect(debian.place(of: address)?.country == String(fields[2]), "\(line)")
            }
        }
    }
}
