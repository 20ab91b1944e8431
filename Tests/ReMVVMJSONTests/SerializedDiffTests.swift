import ReMVVMJSON
import Testing

@Suite("JSONPatch.serializedDiff(fromSerialized:to:)")
struct SerializedDiffTests {
    /// The patch from the trees, serialized: what the byte differ must write, byte for byte.
    private static func treeDiff(_ old: JSONValue, _ new: JSONValue) -> String {
        JSONPatch.treeDiff(from: old, to: new).jsonValue.jsonString
    }

    private static func byteDiff(_ old: JSONValue, _ new: JSONValue) -> String? {
        JSONPatch.serializedDiff(fromSerialized: old.serialized(), to: new.serialized())
            .map { String(decoding: $0, as: UTF8.self) }
    }

    @Test(arguments: JSONPatchDiffTests.expectedDiffs)
    func writesWhatTheTreeDifferWrites(_ old: JSONValue, _ new: JSONValue, expected: JSONPatch) {
        #expect(Self.byteDiff(old, new) == expected.jsonValue.jsonString)
    }

    @Test(arguments: [1, 2, 3, 4])
    func agreesWithTheTreeDifferOnRandomEdits(seed: UInt64) throws {
        var random = RandomJSON(seed: seed)
        for round in 0..<1500 {
            let old = random.value(depth: 4)
            let new = round.isMultiple(of: 4) ? random.value(depth: 4) : random.edited(old, depth: 4)
            let bytes = try #require(JSONPatch.serializedDiff(fromSerialized: old.serialized(), to: new.serialized()))
            #expect(
                String(decoding: bytes, as: UTF8.self) == Self.treeDiff(old, new),
                "\(old.jsonString) -> \(new.jsonString)")
            #expect(try JSONPatch(parsing: JSONValue(parsing: bytes)).apply(to: old) == new)
        }
    }

    /// One member changed, the shortcut's case, and its edges: the path escaped, a change of kind, a nested
    /// container, two changes, a member added or renamed, an empty object.
    static let singleMemberChanges: [(JSONValue, JSONValue)] = [
        (["counter": "0"], ["counter": "1"]),
        (["a": 1, "b": true, "c": "x"], ["a": 1, "b": false, "c": "x"]),
        (["a/b": 1, "~x": 2], ["a/b": 1, "~x": 3]),
        (["a/b": 1, "~x": 2], ["a/b": 4, "~x": 2]),
        (["a": [1, 2], "b": 0], ["a": ["k": 1], "b": 0]),
        (["a": ["k": 1], "b": 0], ["a": ["k": 2], "b": 0]),
        (["a": [1, 2], "b": 0], ["a": [1, 3], "b": 0]),
        (["a": 1, "b": 2], ["a": 3, "b": 4]),
        (["a": 1], ["a": 2, "b": 3]),
        (["a": 1, "b": 2], ["a": 1, "c": 2]),
        (["a": 1], [:]),
        ([:], ["a": 1]),
        (["a": .null], ["a": "long enough to be worth more than its own replace"]),
    ]

    @Test(arguments: singleMemberChanges)
    func aSingleChangedMemberIsWrittenAsTheTreeDifferWritesIt(_ old: JSONValue, _ new: JSONValue) throws {
        #expect(Self.byteDiff(old, new) == Self.treeDiff(old, new))
        let bytes = try #require(JSONPatch.serializedDiff(fromSerialized: old.serialized(), to: new.serialized()))
        #expect(try JSONPatch(parsing: JSONValue(parsing: bytes)).apply(to: old) == new)
    }

    @Test
    func equalDocumentsGiveTheEmptyPatch() {
        var random = RandomJSON(seed: 11)
        for _ in 0..<300 {
            let value = random.value(depth: 4)
            #expect(Self.byteDiff(value, value) == "[]")
        }
    }

    /// Names are sorted by their text, not by their escaped bytes: `a"` (`a\"` on the wire) sorts before `a[`.
    static let escapedNames: [(JSONValue, JSONValue)] = [
        (["a[": 1, "a\"": 2], ["a[": 1, "a\"": 3, "a": 0]),
        (["a[": 1, "a\"": 2], ["a[": 5]),
        (["line\nbreak": "x", "tab\t": [1, 2]], ["line\nbreak": "y", "tab\t": [1, 2, 3], "\u{1}": true]),
        (["~1": 1, "a/b": 2, "~": ["/": 3]], ["~1": 2, "a/b": 2, "~": ["/": 4, "~0": 5]]),
        (["x": ["y": "\u{1F}\u{7}q\"\\"]], ["x": ["y": "\u{1F}\u{7}q\"\\!"]]),
    ]

    @Test(arguments: escapedNames)
    func escapedNamesSortAndPointAsTheirText(_ old: JSONValue, _ new: JSONValue) throws {
        #expect(Self.byteDiff(old, new) == Self.treeDiff(old, new))
        let bytes = try #require(JSONPatch.serializedDiff(fromSerialized: old.serialized(), to: new.serialized()))
        #expect(try JSONPatch(parsing: JSONValue(parsing: bytes)).apply(to: old) == new)
    }

    /// Only the canonical form is read; anything else is left to the tree differ.
    @Test(arguments: [
        #"{"a": 1}"#, #"{"b":1,"a":2}"#, #"{"a":1,"a":2}"#, #"["\/"]"#, #"["\u00e9"]"#, #"["\u0041"]"#, "[1]x", "",
        "[1,]", #"{"a":}"#, "tru", #""unterminated"#, "[\"\u{1}\"]", " 1", "[1-]", "[01]", "[1.]", "[.5]", "[1e]",
        "[-]",
        "[1.5e+]",
    ])
    func refusesWhatIsNotTheCanonicalForm(_ text: String) {
        #expect(JSONPatch.serializedDiff(fromSerialized: Array(text.utf8), to: Array("[]".utf8)) == nil)
        #expect(JSONPatch.serializedDiff(fromSerialized: Array("[]".utf8), to: Array(text.utf8)) == nil)
    }

    /// Serialization writes Swift strings: anything but well-formed UTF-8 is refused (a fuzzer's find).
    @Test(
        arguments: [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] as [[UInt8]])
    func refusesMalformedUTF8(_ sequence: [UInt8]) {
        let string = [UInt8(ascii: "\"")] + sequence + [UInt8(ascii: "\"")]
        #expect(JSONPatch.serializedDiff(fromSerialized: Array(#""""#.utf8), to: string) == nil)
        #expect(JSONPatch.serializedDiff(fromSerialized: Array(#""é""#.utf8), to: Array(#""日本🎉""#.utf8)) != nil)
    }

    /// Where bytes and values disagree, the byte differ reports a change; its patch still leads to the new bytes.
    @Test
    func countsNegativeZeroAsAChange() throws {
        let old: JSONValue = ["x": 0.0]
        let new: JSONValue = ["x": -0.0]
        #expect(Self.treeDiff(old, new) == "[]")
        #expect(Self.byteDiff(old, new) == #"[{"op":"replace","path":"/x","value":-0.0}]"#)
    }

    /// Numbers are only checked to be JSON numbers, and compared by their bytes.
    @Test
    func comparesNumbersByTheirBytes() throws {
        let bytes = try #require(
            JSONPatch.serializedDiff(fromSerialized: Array(#"{"x":1.50}"#.utf8), to: Array(#"{"x":1.5E0}"#.utf8)))
        #expect(String(decoding: bytes, as: UTF8.self) == #"[{"op":"replace","path":"/x","value":1.5E0}]"#)
    }

    /// What a client gets when the documents cannot be read: one replace of the whole, which leads to the new one.
    @Test(arguments: [1, 2])
    func theReplacementPatchLeadsToTheNewDocument(seed: UInt64) throws {
        var random = RandomJSON(seed: seed)
        for _ in 0..<200 {
            let old = random.value(depth: 3)
            let new = random.value(depth: 3)
            let bytes = JSONPatch.serializedReplacement(with: new.serialized())
            let patch = try JSONPatch(parsing: JSONValue(parsing: bytes))
            #expect(patch == [.replace(path: [], value: new)])
            #expect(try patch.apply(to: old) == new)
        }
    }
}
