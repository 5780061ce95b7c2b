@testable import DeepLinks
import Testing

/// The trie alone: which routes it offers for a path, in which order, with which captures (the matcher then
/// checks each candidate's parameters and takes the first that passes).
@Suite struct RouteTrieTests {
    /// Every candidate for `path`, as (route index, captures): a capture is the index of the segment a path
    /// parameter took, or `path.count + i` for a catch-all that took the segments from `i` on.
    static func candidates(_ patterns: [String], _ path: [String]) -> [(route: Int, captures: [Int32])] {
        let trie = RouteTrie(patterns.map(RoutePattern.init))
        var bytes: [UInt8] = []
        var bounds: [Int32] = [0]
        for segment in path {
            bytes += Array(segment.utf8)
            bounds.append(Int32(bytes.count))
        }
        var frames = [Int32](repeating: 0, count: 4 * (path.count + 2))
        var captures = [Int32](repeating: 0, count: path.count + 2)
        return bytes.withUnsafeBufferPointer { bytes in
            bounds.withUnsafeBufferPointer { bounds in
                frames.withUnsafeMutableBufferPointer { frames in
                    captures.withUnsafeMutableBufferPointer { captures in
                        var walk = trie.candidates(
                            URLSegments(bytes: bytes, bounds: bounds),
                            frames: frames,
                            captures: captures
                        )
                        var found: [(route: Int, captures: [Int32])] = []
                        while let (route, taken) = walk.next() { found.append((route, Array(taken))) }
                        return found
                    }
                }
            }
        }
    }

    @Test func aLiteralComesBeforeAParameterBeforeACatchAll() {
        let found = Self.candidates(["/post/:id", "/post/new", "/*rest"], ["post", "new"])
        #expect(found.map(\.route) == [1, 0, 2])
        #expect(found[1].captures == [1], "the parameter took segment 1")
        #expect(found[2].captures == [2], "the catch-all took the segments from 0 (2 + 0)")
    }

    @Test func aDeadEndBacktracksToTheParameter() {
        let found = Self.candidates(["/a/:x/c", "/a/b/d"], ["a", "b", "c"])
        #expect(found.map(\.route) == [0])
        #expect(found[0].captures == [1])
    }

    @Test func theRootAndNoMatch() {
        #expect(Self.candidates(["/", "/post/:id"], []).map(\.route) == [0])
        #expect(Self.candidates(["/post/:id"], ["user", "7"]).isEmpty)
        #expect(Self.candidates(["/post/:id"], ["post"]).isEmpty, "a parameter needs its segment")
    }

    /// Many literal children share the hash table: each still finds its own.
    @Test func manyLiteralChildrenEachFindTheirRoute() {
        let patterns = (0..<200).map { "/s\($0)/items/:id" }
        for section in [0, 37, 199] {
            let found = Self.candidates(patterns, ["s\(section)", "items", "5"])
            #expect(found.map(\.route) == [section])
            #expect(found.first?.captures == [2])
        }
        #expect(Self.candidates(patterns, ["s200", "items", "5"]).isEmpty)
    }

    /// A literal is compared byte for byte, past its first 16 bytes too (the rest lives in a pool).
    @Test func longLiteralsAreComparedWhole() {
        let long = String(repeating: "x", count: 40)
        let found = Self.candidates(["/\(long)a", "/\(long)b"], ["\(long)b"])
        #expect(found.map(\.route) == [1])
    }
}
