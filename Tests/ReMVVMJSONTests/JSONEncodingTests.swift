import Foundation
import ReMVVMJSON
import Testing

/// One value encoded both ways; the closure hides the value's type so one table can hold them all.
struct ParityCase: Sendable, CustomTestStringConvertible {
    let name: String
    let encodeBothWays: @Sendable () throws -> (mine: JSONValue, reference: JSONValue)

    var testDescription: String { name }

    static func of(_ name: String, _ value: some Encodable & Sendable) -> ParityCase {
        ParityCase(name: name) {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .secondsSince1970
            let reference = try JSONValue(parsing: encoder.encode(value))
            return (try JSONValue(encoding: value), reference)
        }
    }
}

@Suite("JSONValue(encoding:)")
struct JSONEncodingTests {
    typealias Fixtures = EncodingFixtures

    static let parityCases: [ParityCase] = [
        .of("counter", Fixtures.Counter(counter: "42")),
        .of(
            "profile with nil optionals",
            Fixtures.Profile(
                name: "Ada",
                nickname: nil,
                age: nil,
                tags: [],
                scores: [:],
                address: nil,
                maybeMaybe: nil,
                optionals: []
            )
        ),
        .of(
            "profile with values",
            Fixtures.Profile(
                name: "Ada",
                nickname: "countess",
                age: 36,
                tags: ["math", "engines"],
                scores: ["a": 1.5, "b": -2],
                address: Fixtures.Address(street: "St James's Square", postcode: nil),
                maybeMaybe: .some(nil),
                optionals: [1, nil, 3]
            )
        ),
        .of(
            "profile with doubly wrapped value",
            Fixtures.Profile(
                name: "",
                tags: [""],
                scores: ["": 0],
                maybeMaybe: .some(.some(7)),
                optionals: [nil]
            )
        ),
        .of("enum case with labels", Fixtures.Shape.circle(radius: 2.5)),
        .of("enum case without labels", Fixtures.Shape.rectangle(3, 4)),
        .of("enum case with nil payload", Fixtures.Shape.labelled("x", size: nil)),
        .of("enum case without payload", Fixtures.Shape.empty),
        .of("array of enums", [Fixtures.Shape.empty, .labelled("y", size: 2), .circle(radius: 0)]),
        .of("raw value enums", [Fixtures.Color.red: Fixtures.Priority.high]),
        .of("numbers", Fixtures.Numbers()),
        .of("foundation values", Fixtures.FoundationValues()),
        .of("dictionaries", Fixtures.Dictionaries()),
        .of("hand-written containers", Fixtures.Containers()),
        .of("class hierarchy through superEncoder", Fixtures.Derived(id: 7, title: "seven")),
        .of("nested value that encodes nothing", Fixtures.HoldsSilent()),
        .of("embedded JSONValue", Fixtures.HoldsJSON(payload: ["a": [1, 2.5, "x", .null, ["b": false]]])),
        .of("top-level nil", Int?.none),
        .of("top-level string", "top\nlevel"),
        .of("top-level integer", 42),
        .of("top-level array of optionals", [1, nil, 3] as [Int?]),
        .of("top-level date", Date(timeIntervalSince1970: 0)),
        .of("top-level nested arrays", [[1], [], [2, 3]]),
    ]

    @Test(arguments: parityCases)
    func encodingMatchesJSONEncoder(_ parityCase: ParityCase) throws {
        let (mine, reference) = try parityCase.encodeBothWays()
        #expect(mine.isEquivalent(to: reference), "mine: \(mine.jsonString)\nJSONEncoder: \(reference.jsonString)")
    }

    @Test
    func nilOptionalsAreOmittedAndDoublyWrappedNilIsNull() throws {
        let profile = Fixtures.Profile(name: "A", tags: [], scores: [:], maybeMaybe: .some(nil), optionals: [nil])
        let value = try JSONValue(encoding: profile)
        #expect(value == ["name": "A", "tags": [], "scores": [:], "maybeMaybe": .null, "optionals": [.null]])
    }

    @Test
    func foundationValuesUseDocumentedForms() throws {
        let value = try JSONValue(encoding: Fixtures.FoundationValues())
        #expect(value["date"] == .double(1_700_000_000.25))
        #expect(value["url"] == "https://example.com/a/b?c=d#e")
        #expect(value["data"] == "AAEC+v8=")
        #expect(value["decimal"] == .double(3.14))
        #expect(value["integralDecimal"] == .int(12))
    }

    @Test
    func numbersKeepTheirKinds() throws {
        let value = try JSONValue(encoding: Fixtures.Numbers())
        #expect(value["int64"] == .int(.min))
        #expect(value["uint64"] == .double(Double(UInt64.max)))
        #expect(value["float"] == .double(1.1))
        #expect(value["integralDouble"] == .double(2))
    }

    @Test
    func intKeyedDictionariesBecomeObjectsWithStringKeys() throws {
        #expect(try JSONValue(encoding: [3: true, 10: false]) == ["3": true, "10": false])
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteNumbersThrowWithTheirCodingPath(_ number: Double) throws {
        struct Holder: Encodable {
            var values: [Double]
        }
        #expect(throws: EncodingError.self) { try JSONValue(encoding: number) }
        #expect(throws: EncodingError.self) { try JSONValue(encoding: ["x": Float(number)]) }
        let error = #expect(throws: EncodingError.self) { try JSONValue(encoding: Holder(values: [1, number])) }
        guard case .invalidValue(_, let context)? = error else {
            Issue.record("expected invalidValue, got \(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["values", "Index 1"])
        #expect(context.codingPath.last?.intValue == 1)
    }

    @Test
    func topLevelValueThatEncodesNothingThrows() {
        #expect(throws: EncodingError.self) { try JSONValue(encoding: Fixtures.Silent()) }
    }

    @Test
    func encodingAJSONValueGivesItBack() throws {
        let document: JSONValue = ["a": [1, 2.0, "three", .null], "b": ["c": true]]
        #expect(try JSONValue(encoding: document) == document)
    }

    @Test
    func switchingContainerKindsKeepsTheLastInsteadOfTrapping() throws {
        struct Confused: Encodable {
            enum Keys: CodingKey { case a }

            func encode(to encoder: any Encoder) throws {
                var single = encoder.singleValueContainer()
                try single.encode(1)
                var keyed = encoder.container(keyedBy: Keys.self)
                try keyed.encode(2, forKey: .a)
            }
        }
        #expect(try JSONValue(encoding: Confused()) == ["a": 2])
    }

    @Test
    func jsonValueRoundTripsThroughFoundationCoders() throws {
        let document: JSONValue = ["list": [1, -2.5, "s", true, .null], "object": ["k": [:]], "empty": []]
        let bytes = try JSONEncoder().encode(document)
        #expect(try JSONValue(parsing: bytes).isEquivalent(to: document))
        #expect(try JSONDecoder().decode(JSONValue.self, from: bytes).isEquivalent(to: document))
    }
}
