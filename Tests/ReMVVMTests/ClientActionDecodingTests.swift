import Foundation
@_spi(ReMVVMServer) import ReMVVM
import Testing

/// What a client may send: only a definition's ``StoreDefinition/clientActions``, checked by type before any
/// payload is read; the store's own decoding (its log, its topics) still knows every type.
@Suite("Client action decoding")
struct ClientActionDecodingTests {
    /// The test app with `test/increment` and `test/setCount` open to clients.
    static var registry: ActionRegistry {
        var definition = makeDefinition()
        definition.clientActions.register(Increment.self)
        definition.clientActions.register(SetCount.self)
        return definition.actions
    }

    static let sendable = ["test/increment", "test/setCount"]

    /// The error decoding `json` from a client throws, if any.
    static func clientError(_ json: String) -> ActionDecodingError? {
        do {
            _ = try registry.decodeClientActions(from: Data(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test func aClientActionDecodes() throws {
        let actions = try Self.registry.decodeClientActions(
            from: Data(#"[{"type":"test/increment"},{"type":"test/setCount","payload":{"value":2}}]"#.utf8))
        #expect(actions.map(\.wireName) == ["test/increment", "test/setCount"])
        #expect(Self.registry.clientWireNames == ["test/increment", "test/setCount"])
    }

    @Test(
        arguments: [
            (#"{"type":"test/rename","payload":{"name":"Ada"}}"#, "test/rename", nil),
            // Refused by its type: the payload, which would not decode, is never read.
            (#"{"type":"test/fetched","payload":"not an object"}"#, "test/fetched", nil),
            (#"{"type":"test\/rename","payload":{"name":"Ada"}}"#, "test/rename", nil),
            (#"[{"type":"test/increment"},{"type":"test/fetch"}]"#, "test/fetch", 1),
        ] as [(String, String, Int?)])
    func anyOtherKnownTypeIsRefusedBeforeItsPayloadIsRead(json: String, type: String, index: Int?) throws {
        let error = try #require(Self.clientError(json))
        #expect(error.reason == .serverOnly(type))
        #expect(error.index == index)
        #expect(error.clientTypes == Self.sendable)
        #expect(error.actionType == type)
    }

    @Test func theStoreItselfStillDecodesEveryType() throws {
        let actions = try Self.registry.decodeActions(
            from: Data(#"{"type":"test/rename","payload":{"name":"A"}}"#.utf8))
        #expect(actions[0] as? Rename == Rename(name: "A"))
    }

    @Test func anUnknownTypeFromAClientListsTheTypesItMaySend() throws {
        let error = try #require(Self.clientError(#"{"type":"test/nope"}"#))
        #expect(error.reason == .unknownType("test/nope"))
        #expect(error.clientTypes == Self.sendable)
        #expect(error.description == "unknown action type 'test/nope'; clients may send: test/increment, test/setCount")
        // The store's own decoding lists nothing: no client is told.
        #expect(throws: ActionDecodingError(.unknownType("test/nope"))) {
            try Self.registry.decodeActions(from: Data(#"{"type":"test/nope"}"#.utf8))
        }
    }

    @Test func aDefinitionLetsClientsSendNothingUnlessItSaysSo() {
        let registry = makeDefinition().actions
        #expect(registry.clientWireNames.isEmpty)
        do {
            _ = try registry.decodeClientActions(from: Data(#"{"type":"test/increment"}"#.utf8))
            Issue.record("decoded an action no definition opened to clients")
        } catch {
            #expect(error.reason == .serverOnly("test/increment"))
            #expect(
                error.description
                    == "'test/increment' is dispatched by the server only; clients may not send it; the app lets "
                    + "clients send no action type (StoreDefinition's clientActions)")
        }
    }

    @Test func aClientActionNoReducerHandlesIsDecodableToo() throws {
        struct Ping: StoreAction { static let wireName = "test/ping" }
        let definition = StoreDefinition(
            initialState: TestState(), reducer: .empty, projections: Projections<TestState>(),
            clientActions: [Ping.self])
        #expect(definition.actions.wireNames == ["test/ping"])
        #expect(try definition.actions.decodeClientActions(from: Data(#"{"type":"test/ping"}"#.utf8))[0] is Ping)
    }

    @Test func fieldsSentBesideTheTypeGetAHint() {
        do {
            _ = try Self.registry.decodeClientActions(from: Data(#"{"type":"test/setCount","value":3}"#.utf8))
            Issue.record("decoded a payload without its field")
        } catch {
            #expect(error.field == "value")
            #expect(
                error.hint
                    == #"'value' was sent beside "type", but fields go inside "payload": "#
                    + #"{"type": "test/setCount", "payload": {"value": ...}}"#)
        }
    }
}
