import Foundation
import ReMVVMJSON
import Synchronization
import Testing

@_spi(ReMVVMServer) @testable import ReMVVM

/// An action whose fields all have defaults, decoded with `decodeIfPresent`, so every payload shape decodes.
private struct Configure: StoreAction, Equatable {
    static let wireName = "test/configure"
    var step = 1
    var label = "none"

    private enum CodingKeys: String, CodingKey { case step, label }

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        step = try container.decodeIfPresent(Int.self, forKey: .step) ?? 1
        label = try container.decodeIfPresent(String.self, forKey: .label) ?? "none"
    }
}

/// Counts its decodings, so a test can tell that every decode ran `init(from:)` rather than reusing a result.
private struct Stamped: StoreAction {
    static let wireName = "test/stamped"
    static let decodings = Atomic<Int>(0)
    let stamp: Int

    init(from decoder: any Decoder) throws {
        stamp = Self.decodings.add(1, ordering: .relaxed).newValue
    }

    func encode(to encoder: any Encoder) throws {}
}

/// Payloads decode through each type's own `init(from:)` with `JSONValue.decode`'s semantics: for every
/// payload shape, `decodeActions(from:)` gives the action or the error the general path gives (the payload,
/// `{}` when missing or `null`, decoded with user info, which builds its decoder the general way).
@Suite("Action payload decoding")
struct ActionPayloadDecodingTests {
    let registry: ActionRegistry = {
        var registry = makeDefinition().actions
        registry.register(Configure.self)
        registry.register(Stamped.self)
        return registry
    }()

    static let types: [any StoreAction.Type] = [Increment.self, SetCount.self, Rename.self, Configure.self]

    static let payloads: [String?] = [
        nil, "null", "{}", #"{"value":4}"#, #"{"value":4,"note":"n"}"#, #"{"value":"x"}"#, #"{"value":null}"#,
        #"{"name":"Ada"}"#, #"{"name":7}"#, #"{"step":3,"label":"x"}"#, #"{"step":"3"}"#, #"{"label":null}"#,
        "[]", "[1]", #""text""#, "3", "true", #"{"extra":{"deep":[1,2]}}"#,
    ]

    @Test(arguments: types, payloads)
    func decodesWhatTheGeneralPathDecodes(type: any StoreAction.Type, payload: String?) throws {
        let body = payload.map { #"{"type":"\#(type.wireName)","payload":\#($0)}"# } ?? #"{"type":"\#(type.wireName)"}"#
        let decoded = Result { () throws(ActionDecodingError) in try registry.decodeActions(from: Array(body.utf8)) }
        let expected = try reference(type, payload: payload)
        switch (decoded, expected) {
        case (.success(let actions), .success(let action)):
            #expect(actions.map { String(describing: $0) } == [String(describing: action)])
        case (.failure(let error), .failure(let expectedError)):
            #expect(error == expectedError)
        default:
            Issue.record("\(body): decodeActions gave \(decoded) but the general path \(expected)")
        }
    }

    @Test func requiredFieldsStillFailWithoutPayload() {
        #expect(
            throws: ActionDecodingError(.invalidPayload(type: "test/setCount", field: "value", problem: "is missing"))
        ) {
            try registry.decodeActions(from: Array(#"{"type":"test/setCount"}"#.utf8))
        }
    }

    @Test func defaultsFillAMissingPayload() throws {
        let actions = try registry.decodeActions(from: Array(#"{"type":"test/configure"}"#.utf8))
        #expect(actions.first as? Configure == Configure())
    }

    @Test func everyDecodeRunsInitFromDecoder() throws {
        let body = Array(#"{"type":"test/stamped"}"#.utf8)
        let first = try #require(try registry.decodeActions(from: body).first as? Stamped)
        let second = try #require(try registry.decodeActions(from: body).first as? Stamped)
        #expect(first.stamp != second.stamp)
    }

    /// The general path: the payload parsed on its own and decoded with a user-info dictionary, errors mapped
    /// as the registry maps them.
    private func reference(
        _ type: any StoreAction.Type,
        payload: String?
    ) throws -> Result<any StoreAction, ActionDecodingError> {
        let marker = try #require(CodingUserInfoKey(rawValue: "test.marker"))
        let value = try payload.map { try JSONValue(parsing: Array($0.utf8)) } ?? .null
        do {
            return .success(try decode(type, from: value == .null ? .object([:]) : value, userInfo: [marker: true]))
        } catch let error as DecodingError {
            return .failure(ActionDecodingError.payload(error, type: type.wireName, index: nil))
        }
    }

    private func decode<Action: StoreAction>(
        _ type: Action.Type,
        from value: JSONValue,
        userInfo: [CodingUserInfoKey: any Sendable]
    ) throws -> any StoreAction {
        try value.decode(Action.self, userInfo: userInfo)
    }
}
