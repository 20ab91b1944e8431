import ReMVVMJSON
import Testing

@Suite("JSONValue")
struct JSONValueTests {
    @Test(
        arguments: [
            (2, 2.0, true),
            (-0.0, 0, true),
            (1, 1.5, false),
            (.int(.max), .double(0x1p63), false),
            ([1, ["a": 2.0]], [1.0, ["a": 2]], true),
            (["a": 1], ["a": 1, "b": 1], false),
            (["a": 1], ["b": 1], false),
            ([1, 2], [2, 1], false),
            ("1", 1, false),
            (.null, false, false),
        ] as [(JSONValue, JSONValue, Bool)])
    func equivalenceComparesNumbersByValue(_ left: JSONValue, _ right: JSONValue, expected: Bool) {
        #expect(left.isEquivalent(to: right) == expected)
        #expect(right.isEquivalent(to: left) == expected)
    }

    @Test
    func structuralEqualityKeepsIntegersAndDoublesApart() {
        #expect(JSONValue.int(2) != .double(2))
    }

    @Test
    func subscriptsReadMembersAndElementsWithoutTrapping() {
        let document: JSONValue = ["list": [10, 20], "name": "x"]
        #expect(document["list"]?[1] == 20)
        #expect(document["list"]?[2] == nil)
        #expect(document["list"]?[-1] == nil)
        #expect(document["missing"] == nil)
        #expect(document["name"]?["anything"] == nil)
        #expect(document[0] == nil)
    }

    @Test(
        arguments: [
            (.null, "null"), (true, "boolean"), (1, "number"), (1.5, "number"), ("s", "string"), ([], "array"),
            ([:], "object"),
        ] as [(JSONValue, String)])
    func typeNameNamesTheJSONType(_ value: JSONValue, expected: String) {
        #expect(value.typeName == expected)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func handBuiltNonFiniteDoublesSerializeAsNull(_ number: Double) throws {
        let value: JSONValue = ["x": .double(number)]
        #expect(value.jsonString == #"{"x":null}"#)
        #expect(try JSONValue(parsing: value.serialized()) == ["x": .null])
    }
}
