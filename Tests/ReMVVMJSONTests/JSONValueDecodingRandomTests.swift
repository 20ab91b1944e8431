import Foundation
import ReMVVMJSON
import Testing

@Suite("JSONValue.decode on random input")
struct JSONValueDecodingRandomTests {
    typealias Fixtures = DecodingFixtures

    @Test(arguments: 0..<4)
    func encodedModelsDecodeBackToThemselves(batch: UInt64) throws {
        var generator = SeededGenerator(seed: 0xDEC0DE + batch)
        for _ in 0..<750 {
            let model = RandomCodableModel.random(using: &generator)
            #expect(try JSONValue(encoding: model).decode(RandomCodableModel.self) == model)
            // The same model through JSONEncoder's text and the parser, as a request body would arrive.
            let parsed = try JSONValue(parsing: JSONEncoder().encode(model))
            #expect(try parsed.decode(RandomCodableModel.self) == model)
        }
    }

    /// Every random document (and every value inside one) either decodes or throws a `DecodingError`, for types
    /// of every container kind; where `JSONDecoder` decodes it too the values agree, and where both throw they
    /// agree on the case, path and message.
    @Test(arguments: 0..<4)
    func randomDocumentsDecodeOrThrowLikeJSONDecoder(batch: UInt64) throws {
        var random = RandomJSON(seed: 0x5EED + batch)
        var decoded: [String: Int] = [:]
        for document in (0..<250).flatMap({ _ in Self.valuesIn(random.value(depth: 4)) }) {
            let json = document.jsonString
            let outcomes = [
                try checkParity(Fixtures.RandomlyNamed.self, json),
                try checkParity(Fixtures.RandomlyRequired.self, json),
                try checkParity(Fixtures.RandomlyPicked.self, json),
                try checkParity(Fixtures.SetValue.self, json),
                try checkParity(Fixtures.Flexible.self, json),
                try checkParity([Int].self, json),
                try checkParity([String?].self, json),
                try checkParity(Int8.self, json),
                try checkParity(JSONValue.self, json, comparing: { $0.isEquivalent(to: $1) }),
            ]
            for (type, success) in outcomes where success {
                decoded[type, default: 0] += 1
            }
            // Types with several dictionaries fail on whichever bad member hash order reaches first, which
            // differs between the two decoders, so for them only "no crash, only DecodingError" is checked.
            for decode in Self.unorderedDecodes {
                do {
                    try decode(document)
                } catch is DecodingError {
                } catch {
                    Issue.record("\(json): \(error)")
                }
            }
        }
        // Successes must be exercised too, or the parity above proves little.
        for type in ["RandomlyNamed", "RandomlyRequired", "Flexible", "Array<Int>", "JSONValue"] {
            #expect(decoded[type, default: 0] > 2, "\(type) decoded \(decoded[type, default: 0]) times")
        }
    }

    /// `value` and every value nested in it, so nested objects are tried as documents of their own.
    private static func valuesIn(_ value: JSONValue) -> [JSONValue] {
        switch value {
        case .array(let elements): [value] + elements.flatMap(valuesIn)
        case .object(let members): [value] + members.values.flatMap(valuesIn)
        default: [value]
        }
    }

    private static let unorderedDecodes: [@Sendable (JSONValue) throws -> Void] = [
        { _ = try $0.decode(Fixtures.Profile.self) },
        { _ = try $0.decode(Fixtures.Dictionaries.self) },
        { _ = try $0.decode(Fixtures.Containers.self) },
        { _ = try $0.decode(Fixtures.ContainerProbe.self) },
        { _ = try $0.decode(Fixtures.FoundationValues.self) },
        { _ = try $0.decode(RandomCodableModel.self) },
        { _ = try $0.decode([String: [String: Int]].self) },
        { _ = try $0.decode([Int: Bool].self) },
    ]

    private func checkParity<Value: Decodable>(
        _ type: Value.Type,
        _ json: String,
        comparing equal: (Value, Value) -> Bool
    ) throws -> (type: String, decoded: Bool) {
        let document = try JSONValue(parsing: json)
        let mine = Result { try document.decode(Value.self) }
        let reference = Result { try JSONDecoder().decode(Value.self, from: Data(json.utf8)) }
        switch (mine, reference) {
        case (.success(let mine), .success(let reference)):
            #expect(equal(mine, reference), "\(Value.self) from \(json)")
            return ("\(Value.self)", true)
        case (.failure(let mine), .failure(let reference)):
            let (mine, reference) = (DecodingErrorSummary(mine), DecodingErrorSummary(reference))
            #expect(mine.kind != "not a DecodingError", "\(Value.self) from \(json): \(mine)")
            if reference.kind == "dataCorrupted" && reference.path.isEmpty {
                // JSONDecoder's out-of-range numbers; see unrepresentableNumbersAreDataCorruptedAtTheirField.
                #expect(mine.kind == "dataCorrupted", "\(Value.self) from \(json): \(mine)")
            } else {
                #expect(mine == reference, "\(Value.self) from \(json)")
            }
        default:
            Issue.record("\(Value.self) from \(json): mine \(mine), JSONDecoder \(reference)")
        }
        return ("\(Value.self)", false)
    }

    private func checkParity<Value: Decodable & Equatable>(
        _ type: Value.Type,
        _ json: String
    ) throws -> (type: String, decoded: Bool) {
        try checkParity(type, json, comparing: ==)
    }
}
