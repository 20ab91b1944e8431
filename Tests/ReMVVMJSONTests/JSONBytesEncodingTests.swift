import Foundation
import Testing

@testable import ReMVVMJSON

/// One value encoded three ways: the byte encoder alone, the public entry point, and the tree then serialized.
struct BytesCase: Sendable, CustomTestStringConvertible {
    let name: String
    let encodeThreeWays: @Sendable () throws -> (fast: [UInt8]?, entry: [UInt8], tree: [UInt8])

    var testDescription: String { name }

    static func of(_ name: String, _ value: some Encodable & Sendable) -> BytesCase {
        BytesCase(name: name) {
            (JSONBytesEncoder.encode(value), try JSONValue.serializedEncoding(of: value), try tree(value))
        }
    }

    static func tree(_ value: some Encodable) throws -> [UInt8] {
        try JSONValue(encoding: value).serialized()
    }
}

@Suite("JSONValue.serializedEncoding(of:)")
struct JSONBytesEncodingTests {
    typealias Fixtures = EncodingFixtures
    typealias Bytes = BytesEncodingFixtures

    /// Values the byte encoder writes itself.
    static let fastCases: [BytesCase] = [
        .of("counter", Fixtures.Counter(counter: "5")),
        .of(
            "profile with nil optionals",
            Fixtures.Profile(name: "Ada", tags: [], scores: [:], maybeMaybe: nil, optionals: [])
        ),
        .of(
            "profile with values",
            Fixtures.Profile(
                name: "Ada", nickname: "countess", age: 36, tags: ["math", "engines"], scores: ["b": -2, "a": 1.5],
                address: Fixtures.Address(street: "St James's Square", postcode: nil), maybeMaybe: .some(nil),
                optionals: [1, nil, 3]
            )
        ),
        .of("enum case with labels", Fixtures.Shape.circle(radius: 2.5)),
        .of("enum case without labels", Fixtures.Shape.rectangle(3, 4)),
        .of("enum case with nil payload", Fixtures.Shape.labelled("x", size: nil)),
        .of("enum case without payload", Fixtures.Shape.empty),
        .of("array of enums", [Fixtures.Shape.empty, .labelled("y", size: 2), .circle(radius: 0)]),
        .of("raw value enums as keys and values", [Fixtures.Color.red: Fixtures.Priority.high, .green: .low]),
        .of("numbers", Fixtures.Numbers()),
        .of("numeric edges", Bytes.Edges()),
        .of("foundation values", Fixtures.FoundationValues()),
        .of("dictionaries", Fixtures.Dictionaries()),
        .of("int keys, unordered", [20: "twenty", 3: "three", -1: "minus one", 100: "hundred"]),
        .of("string keys, unordered", ["b": 2, "a": 1, "B": 3, "é": 4, "aa": 5, "": 6]),
        .of("keys needing UTF-8 order", Bytes.Keys(names: ["b", "é", "a", "B", "aa", "", "a ", "a\u{1}", "🎉"])),
        .of("keys already in order", Bytes.Keys(names: ["", "B", "a", "aa", "b", "é"])),
        .of("many keys in reverse", Bytes.Keys(names: (0..<40).map { "key\($0)" }.reversed())),
        .of("strings with escapes and non-ASCII", Bytes.Texts()),
        .of("optionals", Bytes.Optionals()),
        .of("class hierarchy through superEncoder", Fixtures.Derived(id: 7, title: "seven")),
        .of("class hierarchy sharing one container", Bytes.Dog(name: "Rex")),
        .of("nested containers used in order", Bytes.OrderedNesting()),
        .of("nested value that encodes nothing", Fixtures.HoldsSilent()),
        .of("single value that encodes nothing", Bytes.WrapsSilent()),
        .of("coding paths read while encoding", Bytes.PathEcho()),
        .of("embedded JSONValue", Fixtures.HoldsJSON(payload: ["b": [1, 2.5, "x", .null, ["b": false, "a": []]]])),
        .of("top-level nil", Int?.none),
        .of("top-level string", "top\nlevel"),
        .of("top-level integer", Int64.min),
        .of("top-level unsigned", UInt64.max),
        .of("top-level double", -0.0),
        .of("top-level decimal", Decimal(string: "-12.5")),
        .of("top-level URL", URL(string: "https://example.com/ä?q=1")),
        .of("top-level data", Data([0, 255])),
        .of("top-level date", Date(timeIntervalSince1970: 1_700_000_000.5)),
        .of("top-level array of optionals", [1, nil, 3] as [Int?]),
        .of("top-level empty array", [Int]()),
        .of("top-level empty object", [String: Int]()),
        .of("top-level nested arrays", [[[1]], [], [[2, 3], []]] as [[[Int]]]),
    ]

    /// Values whose tree semantics the byte encoder does not reproduce; the entry point must still match.
    static let declinedCases: [BytesCase] = [
        .of("same key twice", Bytes.SameKeyTwice()),
        .of("nested container written after its parent", Bytes.LateNestedWrite()),
        .of("super encoder used after its parent", Bytes.LateSuperEncoder()),
        .of("nested container requested twice for one key", Fixtures.Containers()),
        .of("keys equal after normalization", Bytes.CanonicallyEqualKeys(first: "é", second: "e\u{301}")),
        .of("Kelvin sign and K", Bytes.CanonicallyEqualKeys(first: "K", second: "\u{212A}")),
        .of("single value written twice", Bytes.SingleValueTwice()),
        .of("switching container kinds", Bytes.SwitchesContainers()),
    ]

    @Test(arguments: fastCases)
    func byteEncoderWritesWhatTheTreeSerializes(_ bytesCase: BytesCase) throws {
        let (fast, entry, tree) = try bytesCase.encodeThreeWays()
        let written = try #require(fast, "the byte encoder gave up")
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: tree, as: UTF8.self))
        #expect(written == tree)
        #expect(entry == tree)
    }

    @Test(arguments: declinedCases)
    func declinedValuesFallBackToTheTreesBytes(_ bytesCase: BytesCase) throws {
        let (fast, entry, tree) = try bytesCase.encodeThreeWays()
        #expect(fast == nil)
        #expect(String(decoding: entry, as: UTF8.self) == String(decoding: tree, as: UTF8.self))
    }

    @Test(arguments: 0..<4)
    func randomModelsMatchTheTree(batch: UInt64) throws {
        var generator = SeededGenerator(seed: 0xB17E5 + batch)
        for _ in 0..<250 {
            let model = RandomCodableModel.random(using: &generator)
            let fast = try #require(JSONBytesEncoder.encode(model))
            #expect(fast == (try BytesCase.tree(model)))
        }
    }

    @Test
    func valuesTheTreeRejectsThrowFromTheEntryPoint() {
        #expect(JSONBytesEncoder.encode(Fixtures.Silent()) == nil)
        #expect(JSONBytesEncoder.encode(Bytes.HoldsNaN()) == nil)
        #expect(JSONBytesEncoder.encode(Float.infinity) == nil)
        #expect(throws: EncodingError.self) { try JSONValue.serializedEncoding(of: Fixtures.Silent()) }
        #expect(throws: EncodingError.self) { try JSONValue.serializedEncoding(of: Bytes.HoldsNaN()) }
        #expect(throws: EncodingError.self) { try JSONValue.serializedEncoding(of: Float.infinity) }
    }
}

/// 128-bit integers in every kind of container of both encoders: each container spells these overloads out
/// itself (see `JSONValueWritingContainer`), so each is checked here.
@Suite("128-bit integers")
struct JSONInt128EncodingTests {
    private struct Wide: Encodable {
        let small: Int128
        let big: UInt128
        let list: Pair
        let single: Single
    }

    /// Calls the unkeyed containers' concrete overloads (an `[Int128]` would go through the generic one).
    private struct Pair: Encodable {
        let first: Int128
        let second: UInt128

        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(first)
            try container.encode(second)
        }
    }

    /// Goes through a single-value container (a bare `Int128` would take the primitive shortcut).
    private struct Single: Encodable {
        let value: UInt128

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    @Test func keyedUnkeyedAndSingleValuesEncodeInBothEncoders() throws {
        let value = Wide(
            small: -42, big: UInt128(Int64.max) + 1, list: Pair(first: 1, second: 2), single: Single(value: 7))
        let expected = #"{"big":9.223372036854776e+18,"list":[1,2],"single":7,"small":-42}"#  // Keys sorted.
        #expect(JSONBytesEncoder.encode(value) == Array(expected.utf8), "the byte encoder itself, no fallback")
        #expect(String(decoding: try JSONValue(encoding: value).serialized(), as: UTF8.self) == expected)
    }
}
