import ReMVVMJSON
import Testing

/// The differ's rules, through the production differ: the values are serialized, diffed as bytes and the patch
/// parsed back (`SerializedDiffTests` holds the bytes to the tree oracle).
@Suite("RFC 6902 diff")
struct JSONPatchDiffTests {
    /// The patch `serializedDiff` writes for the two values' serializations, parsed.
    static func diff(from old: JSONValue, to new: JSONValue) throws -> JSONPatch {
        let bytes = try #require(JSONPatch.serializedDiff(fromSerialized: old.serialized(), to: new.serialized()))
        return try JSONPatch(parsing: JSONValue(parsing: bytes))
    }

    /// A value big enough that re-sending it costs more than an operation, so the fine-grained patch wins.
    static let long: JSONValue = "a string long enough that sending it again costs more than a few operations"

    static let expectedDiffs: [(JSONValue, JSONValue, JSONPatch)] = [
        (1, 2, [.replace(path: [], value: 2)]),
        (1, 1.0, [.replace(path: [], value: 1.0)]),
        (["a": 1], [1], [.replace(path: [], value: [1])]),
        (["a": 1, "b": 2], ["a": 1, "b": 3], [.replace(path: ["b"], value: 3)]),
        (["a": 1, "b": 2], ["a": 1], [.remove(path: ["b"])]),
        (["a": 1], ["a": 1, "b/c": 2], [.add(path: ["b/c"], value: 2)]),
        (
            ["keep": long, "old": 1, "gone": 2, "same": [1]],
            ["keep": long, "new": 3, "old": 2, "same": [1]],
            [.remove(path: ["gone"]), .replace(path: ["old"], value: 2), .add(path: ["new"], value: 3)]
        ),
        (
            ["a": ["b": ["c": 1, "d": "long enough to keep"]]], ["a": ["b": ["c": 2, "d": "long enough to keep"]]],
            [.replace(path: ["a", "b", "c"], value: 2)]
        ),
        (["a": ["b": 1]], ["a": "b"], [.replace(path: ["a"], value: "b")]),
        ([long, 2], [long, 2, 3, 4], [.add(path: ["2"], value: 3), .add(path: ["3"], value: 4)]),
        ([long, 2, 3, 4], [long, 2], [.remove(path: ["3"]), .remove(path: ["2"])]),
        (["x", "y", "z"], ["new", "x", "y", "z"], [.add(path: ["0"], value: "new")]),
        (["x", "y", "z"], ["x", "z"], [.remove(path: ["1"])]),
        (["a", "b", "c", "d"], ["a", "B", "c", "d"], [.replace(path: ["1"], value: "B")]),
        ([], [], []),
        (
            ["items": [["id": 1, "title": "first item"], ["id": 2, "title": "second item"]]],
            ["items": [["id": 1, "title": "first item"], ["id": 2, "title": "second item, done"]]],
            [.replace(path: ["items", "1", "title"], value: "second item, done")]
        ),
        // Cheaper to replace than to patch piece by piece.
        (["a": 1, "b": 2, "c": 3], ["a": 4, "b": 5, "c": 6], [.replace(path: [], value: ["a": 4, "b": 5, "c": 6])]),
        ([1, 2, 3, 4], [5, 6, 7, 8], [.replace(path: [], value: [5, 6, 7, 8])]),
        ([1, 2], [1, 2, 3, 4], [.replace(path: [], value: [1, 2, 3, 4])]),
        (["x": [1, 2, 3], "y": long], ["x": [3, 2, 1], "y": long], [.replace(path: ["x"], value: [3, 2, 1])]),
    ]

    @Test(arguments: expectedDiffs)
    func producesTheSmallExpectedPatch(_ old: JSONValue, _ new: JSONValue, expected: JSONPatch) throws {
        let patch = try Self.diff(from: old, to: new)
        #expect(patch == expected, "\(patch.jsonValue.jsonString)")
        #expect(try patch.apply(to: old) == new)
    }

    @Test
    func equalValuesGiveTheEmptyPatch() throws {
        var random = RandomJSON(seed: 7)
        for _ in 0..<500 {
            let value = random.value(depth: 4)
            #expect(try Self.diff(from: value, to: value).isEmpty)
        }
    }

    @Test(arguments: [1, 2, 3])
    func diffThenApplyGivesTheNewValue(seed: UInt64) throws {
        var random = RandomJSON(seed: seed)
        for round in 0..<1500 {
            let old = random.value(depth: 4)
            let new = round.isMultiple(of: 4) ? random.value(depth: 4) : random.edited(old, depth: 4)
            let patch = try Self.diff(from: old, to: new)
            #expect(try patch.apply(to: old) == new, "\(old.jsonString) -> \(new.jsonString)")
            let reread = try JSONPatch(parsing: JSONValue(parsing: patch.jsonValue.serialized()))
            #expect(reread == patch)
        }
    }

    @Test
    func patchIsDeterministic() throws {
        var random = RandomJSON(seed: 99)
        for _ in 0..<200 {
            let old = random.value(depth: 3)
            let new = random.edited(old, depth: 3)
            let first = try Self.diff(from: old, to: new)
            // A copy built in a different insertion order must give the same operations in the same order.
            let shuffled = Self.rebuiltInReverseOrder(new)
            #expect(try Self.diff(from: old, to: shuffled) == first)
        }
    }

    private static func rebuiltInReverseOrder(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            var rebuilt: [String: JSONValue] = [:]
            for key in members.keys.sorted().reversed() {
                rebuilt[key] = members[key].map(rebuiltInReverseOrder)
            }
            return .object(rebuilt)
        case .array(let elements):
            return .array(elements.map(rebuiltInReverseOrder))
        default:
            return value
        }
    }
}
