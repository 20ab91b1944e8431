import Foundation
@_spi(ReMVVMServer) import ReMVVM
import Testing

@Suite("Action decoding")
struct ActionDecodingTests {
    let registry = makeDefinition().actions

    @Test func decodesSingleActionWithPayload() throws {
        let actions = try registry.decodeActions(from: Data(#"{"type":"test/setCount","payload":{"value":4}}"#.utf8))
        #expect(actions.count == 1)
        #expect(actions[0] as? SetCount == SetCount(value: 4))
    }

    @Test func payloadIsOptionalForActionsWithoutFields() throws {
        let actions = try registry.decodeActions(from: Data(#"{"type":"test/increment"}"#.utf8))
        #expect(actions[0] is Increment)
        let withNull = try registry.decodeActions(from: Data(#"{"type":"test/increment","payload":null}"#.utf8))
        #expect(withNull[0] is Increment)
    }

    @Test func decodesBatchInOrder() throws {
        let json = #"[{"type":"test/increment"},{"type":"test/rename","payload":{"name":"Ada"}}]"#
        let actions = try registry.decodeActions(from: Data(json.utf8))
        #expect(actions.map { $0.wireName } == ["test/increment", "test/rename"])
    }

    @Test(arguments: [
        (#"{"type":"nope/never"}"#, ActionDecodingError(.unknownType("nope/never"))),
        (
            #"{"type":"test/setCount","payload":{}}"#,
            ActionDecodingError(.invalidPayload(type: "test/setCount", field: "value", problem: "is missing"))
        ),
        (
            #"{"type":"test/setCount","payload":{"value":"x"}}"#,
            ActionDecodingError(.invalidPayload(type: "test/setCount", field: "value", problem: "expected an integer"))
        ),
        (
            #"[{"type":"test/increment"},{"type":"test/setCount","payload":{"value":1,"note":5}}]"#,
            ActionDecodingError(
                .invalidPayload(type: "test/setCount", field: "note", problem: "expected a string"), index: 1)
        ),
        (#"[]"#, ActionDecodingError(.emptyBatch)),
    ])
    func namesTheWrongTypeOrField(json: String, expected: ActionDecodingError) {
        #expect(throws: expected) { try registry.decodeActions(from: Data(json.utf8)) }
    }

    @Test(arguments: [#"{"type":"#, "", "{'type': 1}", #"{"type":"a"} x"#])
    func invalidJSONIsReportedAsSuch(json: String) {
        #expect {
            try registry.decodeActions(from: Data(json.utf8))
        } throws: { error in
            guard let error = error as? ActionDecodingError, case .malformedJSON = error.reason else { return false }
            return true
        }
    }

    @Test(arguments: [#"{"payload":{}}"#, #"{"type":3}"#, #"42"#, #"[1]"#])
    func malformedEnvelopeIsATypedError(json: String) {
        #expect {
            try registry.decodeActions(from: Data(json.utf8))
        } throws: { error in
            guard let error = error as? ActionDecodingError, case .malformedEnvelope = error.reason else {
                return false
            }
            return true
        }
    }

    @Test func encodesActionAsEnvelope() throws {
        let data = try ActionRegistry.encode(SetCount(value: 2))
        #expect(String(decoding: data, as: UTF8.self) == #"{"payload":{"value":2},"type":"test/setCount"}"#)
        let back = try registry.decodeAction(type: "test/setCount", payload: Data(#"{"value":2}"#.utf8))
        #expect(back as? SetCount == SetCount(value: 2))
    }
}
