import Foundation
import ReMVVMJSON
import Testing

@Suite("JSONValue.decode")
struct JSONValueDecodingTests {
    typealias Fixtures = DecodingFixtures
    typealias Holder = DecodingFixtures.Holder
    typealias OptionalHolder = DecodingFixtures.OptionalHolder

    static let validCases: [DecodingParityCase] = [
        .of(Fixtures.SetValue.self, #"{"value": 42}"#),
        .of(Fixtures.SetValue.self, #"{"value": 42, "extra": [1, {"x": null}]}"#, "unknown members are ignored"),
        .of(Fixtures.SetValue.self, #"{"value": 2.0}"#, "integral double as Int"),
        .of(Fixtures.SetValue.self, #"{"value": 1e2}"#, "exponent as Int"),
        .of(Fixtures.SetValue.self, #"{"value": -0.0}"#, "negative zero as Int"),
        .of(
            Fixtures.Integers.self,
            #"""
            {"int": -9223372036854775808, "int8": -128, "int16": 32767, "int32": -2147483648,
             "int64": 9223372036854775807, "uint": 9223372036854775807, "uint8": 255, "uint16": 65535,
             "uint32": 4294967295, "uint64": 0}
            """#
        ),
        .of(Fixtures.Floats.self, #"{"float": 1.1, "double": 0.1}"#),
        .of(Fixtures.Floats.self, #"{"float": 16777217, "double": 9007199254740993}"#, "integers rounded"),
        .of(Fixtures.Floats.self, #"{"float": 3.4028235e38, "double": 1.7976931348623157e308}"#, "largest"),
        .of(Fixtures.Floats.self, #"{"float": 0, "double": -0.0}"#, "zeros"),
        .of(Fixtures.Floats.self, #"{"float": 1e-45, "double": 5e-324}"#, "smallest subnormals"),
        .of(
            Fixtures.Profile.self,
            #"{"name": "Ada", "tags": [], "scores": {}, "optionals": []}"#,
            "missing optionals"
        ),
        .of(
            Fixtures.Profile.self,
            #"""
            {"name": "Ada", "nickname": null, "age": null, "tags": ["a", ""], "scores": {"x": 1, "y": -2.5},
             "address": {"street": "St James's Square", "postcode": null}, "optionals": [1, null, 3],
             "byID": {"7": "seven", "-1": "minus one"}}
            """#,
            "null optionals and values"
        ),
        .of(Fixtures.Shape.self, #"{"circle": {"radius": 2.5}}"#),
        .of(Fixtures.Shape.self, #"{"rectangle": {"_0": 3, "_1": 4}}"#),
        .of(Fixtures.Shape.self, #"{"labelled": {"_0": "x"}}"#, "enum payload with missing optional"),
        .of(Fixtures.Shape.self, #"{"labelled": {"_0": "x", "size": 2}}"#),
        .of(Fixtures.Shape.self, #"{"empty": {}}"#),
        .of([Fixtures.Shape].self, #"[{"empty": {}}, {"circle": {"radius": 0}}]"#),
        .of([Fixtures.Color: Fixtures.Priority].self, #"{"red": 9, "green": 1}"#),
        .of(
            Fixtures.FoundationValues.self,
            #"{"date": 700000000.25, "url": "https://example.com/a/b?c=d#e", "data": "AAEC+v8=", "decimal": 3.14}"#
        ),
        .of(
            Fixtures.FoundationValues.self,
            #"{"date": -1, "url": "https://x.com/a b", "data": "", "decimal": 12}"#,
            "edge foundation values"
        ),
        .of(
            Fixtures.Dictionaries.self,
            #"""
            {"byString": {"b": 2, "a": 1}, "byInt": {"1": "one", "20": "twenty"}, "byColor": {"red": 1},
             "nested": {"outer": {"inner": [1, 2]}}}
            """#
        ),
        .of([Bool: String].self, #"[true, "yes", false, "no"]"#, "non-string keys as a flat array"),
        .of(Fixtures.HoldsJSON.self, #"{"payload": {"a": [1, 2.5, "x", null, {"b": false}]}}"#),
        .of(
            Fixtures.Containers.self,
            #"""
            {"plain": "x", "explicitNull": null, "nested": {"plain": 1, "deeper": true},
             "list": [1, null, {"plain": "late"}, [2.5], "after", "from super"], "superKey": [9], "super": {"a": 1}}
            """#
        ),
        .of(Fixtures.Derived.self, #"{"title": "seven", "super": {"id": 7}}"#),
        .of(Fixtures.Flexible.self, #"[null, true, 7, 300, 2.5, "s", [1]]"#),
        .of(Fixtures.ContainerProbe.self, #"{"a": 1, "null": null, "list": ["x", 1, null, {"street": "s"}]}"#),
        .of(Fixtures.ContainerProbe.self, #"{"a": {"street": "s"}, "null": null, "list": [null, null]}"#),
        .of(Fixtures.ContainerProbe.self, #"{"a": "text", "null": null, "list": []}"#),
        .of(Fixtures.ContainerProbe.self, #"{"a": 1, "null": null}"#, "probe without list"),
        .of(Holder<Int?>.self, #"{"value": null}"#),
        .of(OptionalHolder<Int>.self, #"{}"#),
        .of(OptionalHolder<Int>.self, #"{"value": null}"#),
        .of(OptionalHolder<Fixtures.Address>.self, #"{"value": null}"#),
        .of(OptionalHolder<Date>.self, #"{"value": null}"#),
        .of(OptionalHolder<[Int]>.self, #"{"value": [1]}"#),
        .of(Holder<[Int?]>.self, #"{"value": [null, 1]}"#),
        .of(Holder<[[String]]>.self, #"{"value": [[], ["a"]]}"#),
        .of(Holder<Set<Int>>.self, #"{"value": [3, 1, 2]}"#),
        .of(Holder<Decimal>.self, #"{"value": 1e-7}"#),
        .of(Holder<Decimal>.self, #"{"value": -12345678901234567}"#),
        .of(Holder<Int64>.self, #"{"value": 1e17}"#, "large exponent integer"),
        .of(Holder<UInt8>.self, #"{"value": 255.0}"#),
        .of(Int?.self, "null", "top-level nil"),
        .of(Int.self, "42", "top-level integer"),
        .of(String.self, #""top\nlevel""#, "top-level string"),
        .of(Bool.self, "false", "top-level bool"),
        .of(Date.self, "0", "top-level date"),
        .of(Data.self, #""aGVsbG8=""#, "top-level data"),
        .of([Int?].self, "[1, null, 3]", "top-level array of optionals"),
        .of([String: [Int]].self, #"{"a": [], "b": [1]}"#, "top-level dictionary"),
    ]

    static let invalidCases: [DecodingParityCase] = [
        .of(Fixtures.SetValue.self, #"{}"#, "missing key"),
        .of(Fixtures.SetValue.self, #"{"value": null}"#, "null for Int"),
        .of(Fixtures.SetValue.self, #"{"value": "42"}"#, "string for Int"),
        .of(Fixtures.SetValue.self, #"{"value": true}"#, "bool for Int"),
        .of(Fixtures.SetValue.self, #"{"value": [42]}"#, "array for Int"),
        .of(Fixtures.SetValue.self, #"{"value": {}}"#, "object for Int"),
        .of(Fixtures.SetValue.self, #"[]"#, "array for struct"),
        .of(Fixtures.SetValue.self, #"null"#, "null for struct"),
        .of(Fixtures.SetValue.self, #""x""#, "string for struct"),
        .of(Holder<Bool>.self, #"{"value": null}"#, "null for Bool is a type mismatch"),
        .of(Holder<Bool>.self, #"{"value": 1}"#),
        .of(Holder<String>.self, #"{"value": null}"#),
        .of(Holder<String>.self, #"{"value": 1}"#),
        .of(Holder<Double>.self, #"{"value": "1.5"}"#),
        .of(Holder<Float>.self, #"{"value": null}"#),
        .of(OptionalHolder<Int>.self, #"{"value": "1"}"#),
        .of(OptionalHolder<Bool>.self, #"{"value": 0}"#),
        .of(OptionalHolder<String>.self, #"{"value": []}"#),
        .of(OptionalHolder<Fixtures.Address>.self, #"{"value": {}}"#),
        .of(Holder<[Int]>.self, #"{"value": [1, "2"]}"#, "element of wrong type"),
        .of(Holder<[Int]>.self, #"{"value": [1, null]}"#, "null element"),
        .of(Holder<[Int]>.self, #"{"value": null}"#, "null for array"),
        .of(Holder<[Int]>.self, #"{"value": {}}"#, "object for array"),
        .of(Holder<[[Int]]>.self, #"{"value": [[1], [2, true]]}"#, "nested element"),
        .of(Holder<[Int: String]>.self, #"{"value": {"1": "one", "x": "ex"}}"#, "non-integer key"),
        .of(Holder<[Int: String]>.self, #"{"value": {"1": 1}}"#, "Int-keyed value"),
        .of(Holder<[String: Int]>.self, #"{"value": {"a": "1"}}"#, "String-keyed value"),
        .of(Holder<[String: Int]>.self, #"{"value": []}"#, "array for dictionary"),
        .of(Holder<Date>.self, #"{"value": null}"#),
        .of(Holder<Date>.self, #"{"value": "2024-01-01"}"#),
        .of(Holder<URL>.self, #"{"value": null}"#),
        .of(Holder<URL>.self, #"{"value": ""}"#, "empty URL"),
        .of(Holder<URL>.self, #"{"value": 1}"#),
        .of(Holder<Data>.self, #"{"value": null}"#),
        .of(Holder<Data>.self, #"{"value": "!!"}"#, "invalid base64"),
        .of(Holder<Data>.self, #"{"value": [1, 2]}"#),
        .of(Holder<Decimal>.self, #"{"value": null}"#),
        .of(Holder<Decimal>.self, #"{"value": "3.14"}"#),
        .of(Holder<Fixtures.Priority>.self, #"{"value": 2}"#, "unknown raw value"),
        .of(Holder<Fixtures.Color>.self, #"{"value": "blue"}"#, "unknown string raw value"),
        .of(Fixtures.Profile.self, #"{"name": "Ada", "tags": [], "scores": {}}"#, "missing array"),
        .of(
            Fixtures.Profile.self,
            #"{"name": "Ada", "tags": [], "scores": {}, "optionals": [], "address": {"postcode": "1"}}"#,
            "nested missing key"
        ),
        .of(
            Fixtures.Profile.self,
            #"{"name": "Ada", "tags": [], "scores": {}, "optionals": [], "address": {"street": 5}}"#,
            "nested mismatch"
        ),
        .of(Fixtures.Shape.self, #"{}"#, "enum without a case"),
        .of(Fixtures.Shape.self, #"{"circle": {"radius": 1}, "empty": {}}"#, "enum with two cases"),
        .of(Fixtures.Shape.self, #"{"hexagon": {}}"#, "unknown enum case"),
        .of(Fixtures.Shape.self, #"{"circle": {}}"#, "enum payload missing"),
        .of(Fixtures.Shape.self, #"{"circle": null}"#, "enum payload null"),
        .of(Fixtures.Shape.self, #"{"rectangle": {"_0": 1, "_1": "2"}}"#, "enum payload mismatch"),
        .of([Fixtures.Shape].self, #"[{"empty": {}}, {"empty": []}]"#, "enum payload array"),
        .of(
            Fixtures.Containers.self,
            #"{"plain": "x", "explicitNull": null, "nested": {"plain": 1}, "list": [1]}"#,
            "unkeyed container at end"
        ),
        .of(
            Fixtures.Containers.self,
            #"{"plain": "x", "explicitNull": null, "nested": null, "list": []}"#,
            "null nested container"
        ),
        .of(
            Fixtures.Containers.self,
            #"{"plain": "x", "explicitNull": null, "nested": {"plain": 1}, "list": {}}"#,
            "object for nested unkeyed"
        ),
        .of(
            Fixtures.Containers.self,
            #"{"plain": "x", "explicitNull": null, "nested": {"plain": 1}, "list": [1, null, null]}"#,
            "null for nested keyed in array"
        ),
        .of(
            Fixtures.Containers.self,
            #"{"plain": "x", "explicitNull": null, "nested": {"plain": 1}, "list": [1, null, {"plain": "p"}, 3]}"#,
            "number for nested unkeyed in array"
        ),
        .of(
            Fixtures.Containers.self,
            #"""
            {"plain": "x", "explicitNull": null, "nested": {"plain": 1},
             "list": [1, null, {"plain": "late"}, [2.5], "after"]}
            """#,
            "super decoder past the end"
        ),
        .of(
            Fixtures.Containers.self,
            #"""
            {"plain": "x", "explicitNull": null, "nested": {"plain": 1},
             "list": [1, null, {"plain": "late"}, [2.5], "after", "from super"]}
            """#,
            "missing super key is null"
        ),
        .of(
            Fixtures.Containers.self,
            #"""
            {"plain": "x", "explicitNull": 0, "nested": {"plain": 1},
             "list": [1, null, {"plain": "late"}, [2.5], "after", "from super"], "superKey": [1]}
            """#,
            "missing super stands for null"
        ),
        .of(Fixtures.Derived.self, #"{"title": "seven"}"#, "missing super"),
        .of(Fixtures.Derived.self, #"{"title": "seven", "super": {"id": "7"}}"#, "super mismatch"),
        .of(Int.self, "null", "top-level null"),
        .of(String.self, "1", "top-level mismatch"),
        .of([Int].self, "{}", "top-level object for array"),
        .of([String: Int].self, "[]", "top-level array for dictionary"),
    ]

    @Test(arguments: validCases)
    func validDocumentsDecodeLikeJSONDecoder(_ parityCase: DecodingParityCase) throws {
        let (mine, reference, equal) = try parityCase.decodeBothWays()
        #expect(equal, "mine: \(mine)\nJSONDecoder: \(reference)")
    }

    @Test(arguments: invalidCases)
    func invalidDocumentsThrowWhatJSONDecoderThrows(_ parityCase: DecodingParityCase) throws {
        let (mine, reference, _) = try parityCase.decodeBothWays()
        let myError = try #require(mine.error, "decoded \(mine), JSONDecoder: \(reference)")
        let referenceError = try #require(reference.error, "JSONDecoder decoded \(reference)")
        #expect(myError == referenceError)
    }

    /// Numbers out of range for their type: `JSONDecoder` throws `dataCorrupted` with an empty coding path
    /// ("The given data was not valid JSON."), so the store cannot name the field; this decoder throws the same
    /// case at the member's path.
    static let unrepresentableCases: [(parity: DecodingParityCase, path: String, number: String)] = [
        (.of(Holder<Int8>.self, #"{"value": 300}"#), "value", "300"),
        (.of(Holder<Int8>.self, #"{"value": -129}"#), "value", "-129"),
        (.of(Holder<UInt>.self, #"{"value": -1}"#), "value", "-1"),
        (.of(Holder<Int>.self, #"{"value": 2.5}"#), "value", "2.5"),
        (.of(Holder<Int>.self, #"{"value": 1e300}"#), "value", "1e+300"),
        (.of(Holder<Int>.self, #"{"value": 9223372036854775808}"#), "value", "9.223372036854776e+18"),
        (.of(Holder<Float>.self, #"{"value": 1e39}"#), "value", "1e+39"),
        (.of(Holder<Float>.self, #"{"value": 1e-300}"#), "value", "1e-300"),
        (.of(Holder<Decimal>.self, #"{"value": 1e300}"#), "value", "1e+300"),
        (.of(Holder<[UInt8]>.self, #"{"value": [1, 256]}"#), "value.Index 1#1", "256"),
        (.of(OptionalHolder<Int16>.self, #"{"value": 40000}"#), "value", "40000"),
        (.of(Fixtures.Shape.self, #"{"labelled": {"_0": "x", "size": 0.5}}"#), "labelled.size", "0.5"),
    ]

    @Test(arguments: unrepresentableCases)
    func unrepresentableNumbersAreDataCorruptedAtTheirField(
        _ parityCase: DecodingParityCase,
        path: String,
        number: String
    ) throws {
        let (mine, reference, _) = try parityCase.decodeBothWays()
        let myError = try #require(mine.error)
        #expect(myError.kind == "dataCorrupted")
        #expect(myError.path == path)
        #expect(myError.message == "Number \(number) is not representable in Swift.")
        #expect(reference.error?.kind == "dataCorrupted")
    }

    @Test(arguments: [
        #"{"value": 18446744073709551615}"#, #"{"value": 9223372036854775808}"#, #"{"value": 1e19}"#,
    ])
    func integersBeyondInt64AreRefusedRatherThanRounded(_ json: String) throws {
        // The parser has already rounded these to doubles; JSONDecoder, which still has the digits, decodes them.
        let error = #expect(throws: DecodingError.self) {
            try JSONValue(parsing: json).decode(Holder<UInt64>.self)
        }
        #expect(error.map { DecodingErrorSummary($0).kind } == "dataCorrupted")
        #expect(error.map { DecodingErrorSummary($0).path } == "value")
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteNumbersInHandBuiltValuesThrowInsteadOfTrapping(_ number: Double) throws {
        let document: JSONValue = ["value": .double(number)]
        for decode in Self.numberDecodes {
            let error = #expect(throws: DecodingError.self) { try decode(document) }
            #expect(error.map { DecodingErrorSummary($0).kind } == "dataCorrupted")
        }
    }

    private static let numberDecodes: [@Sendable (JSONValue) throws -> Void] = [
        { _ = try $0.decode(Holder<Int>.self) },
        { _ = try $0.decode(Holder<UInt8>.self) },
        { _ = try $0.decode(Holder<Double>.self) },
        { _ = try $0.decode(Holder<Float>.self) },
        { _ = try $0.decode(Holder<Decimal>.self) },
        { _ = try $0.decode(Holder<Date>.self) },
    ]

    @Test
    func datesAreSecondsSinceTheReferenceDateLikeJSONDecodersDefault() throws {
        let date = try JSONValue.double(100.5).decode(Date.self)
        #expect(date == Date(timeIntervalSinceReferenceDate: 100.5))
        #expect(try JSONValue.int(0).decode(Date.self) == Date(timeIntervalSinceReferenceDate: 0))
    }

    @Test
    func embeddedJSONValuesComeBackAsTheyAre() throws {
        let payload: JSONValue = ["a": [2.0, 1, "x", .null], "b": ["c": [:]]]
        let holder = try JSONValue.object(["payload": payload]).decode(Fixtures.HoldsJSON.self)
        #expect(holder.payload == payload)
        #expect(try payload.decode(JSONValue.self) == payload)
    }

    @Test
    func userInfoReachesEveryLevel() throws {
        let key = try #require(Fixtures.ReadsUserInfo.key)
        let document: JSONValue = ["nested": [:]]
        let decoded = try document.decode(Fixtures.ReadsUserInfo.self, userInfo: [key: "acme"])
        #expect(decoded.tenant == "acme")
        #expect(decoded.nestedTenant == "acme")
        #expect(try document.decode(Fixtures.ReadsUserInfo.self).tenant == nil)
    }

    @Test
    func errorsCarryKeysAndIndicesWithIntValues() throws {
        let document = try JSONValue(parsing: #"{"value": [[1], [2, "three"]]}"#)
        let error = #expect(throws: DecodingError.self) { try document.decode(Holder<[[Int]]>.self) }
        guard case .typeMismatch(let type, let context)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(type is Int.Type)
        #expect(context.codingPath.map(\.stringValue) == ["value", "Index 1", "Index 1"])
        #expect(context.codingPath.map(\.intValue) == [nil, 1, 1])
    }

    @Test
    func typeIsInferredFromContext() throws {
        let value: Fixtures.SetValue = try JSONValue.object(["value": 3]).decode()
        #expect(value == Fixtures.SetValue(value: 3))
    }
}
