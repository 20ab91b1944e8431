import ExampleApp
import Foundation
import HTTPTestClient
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import Testing

@testable import ReMVVMServer

extension EndToEnd {
    /// Only the actions an app lists as ``StoreDefinition/clientActions`` reach a store from HTTP: the example
    /// app's effect results and topic messages are refused from a client, yet still applied when the server
    /// dispatches them.
    @Suite("Client actions over HTTP")
    struct ClientActionTests {
        /// Every action of the example app that only the server dispatches, as a client might forge it.
        static let serverOnly: [JSONValue] = [
            ["type": "quote/loaded", "payload": ["text": "I am forged"]],
            ["type": "quote/failed", "payload": ["reason": "forged"]],
            ["type": "chat/message", "payload": ["from": "Ada", "text": "forged"]],
        ]

        /// The example app's client actions, as every refusal lists them.
        static var sendable: JSONValue {
            .array(ExampleApp.definition().clientActions.wireNames.map(JSONValue.string))
        }

        @Test(arguments: serverOnly)
        func aServerOnlyActionFromAClientIsRefusedAndChangesNothing(_ action: JSONValue) async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                _ = try await api.dispatch(session, ChatTests.join("lobby", as: "Ada"))
                let before = try await api.read(session)
                let type = try #require(action["type"]?.stringValue)
                // Alone, in a batch after an action clients may send, and with a payload that would not decode
                // (refused by its type, never decoded).
                for body: JSONValue in [
                    action, [TestActions.increase, action], ["type": .string(type), "payload": 7],
                ] {
                    let response = try await api.dispatch(session, body)
                    #expect(response.status == 403, "\(response.text)")
                    let problem = try response.json()
                    #expect(problem["type"] == "/problems/server-only-action")
                    #expect(problem["actionType"]?.stringValue == type)
                    #expect(problem["sendableTypes"] == Self.sendable)
                    #expect(
                        problem["detail"]?.stringValue?.contains(
                            "'\(type)' is dispatched by the server only; clients may not send it") == true)
                }
                let after = try await api.read(session)
                #expect(after.storeVersion == before.storeVersion)
                #expect(try after.json()["views"] == before.json()["views"])
            }
        }

        @Test func theQuoteEffectStillAppliesItsResults() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                #expect(try await api.dispatch(session, TestActions.loadQuote).status == 200)
                let loaded = try await eventually {
                    try await api.read(session, query: "?views=quote").json()["views"]?["quote"]?["text"]?.stringValue
                        != nil
                }
                #expect(loaded, "quote/loaded from the effect is applied")
                let failing: JSONValue = ["type": "quote/load", "payload": ["category": "nothing"]]
                #expect(try await api.dispatch(session, failing).status == 200)
                let failed = try await eventually {
                    try await api.read(session, query: "?views=quote").json()["views"]?["quote"]?["error"]?.stringValue
                        == "no quotes about 'nothing'"
                }
                #expect(failed, "quote/failed from the effect is applied")
            }
        }

        @Test func aRoomsMessagesStillArriveFromItsTopic() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let (ada, bob) = (try await api.createSession(), try await api.createSession())
                _ = try await ChatTests.dispatched(ChatTests.join("lobby", as: "Ada"), to: ada, api: api)
                _ = try await ChatTests.dispatched(ChatTests.join("lobby", as: "Bob"), to: bob, api: api)
                _ = try await ChatTests.dispatched(ChatTests.post("hello"), to: ada, api: api)
                #expect(ChatTests.lines(try await ChatTests.chat(bob, api: api)) == ["Ada: hello"])
            }
        }

        @Test func anUnknownTypeListsTheTypesClientsMaySend() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let response = try await api.dispatch(session, ["type": "counter/nope"])
                #expect(response.status == 422)
                let problem = try response.json()
                #expect(problem["sendableTypes"] == Self.sendable)
                let detail = try #require(problem["detail"]?.stringValue)
                #expect(detail.hasPrefix("unknown action type 'counter/nope'; clients may send: chat/join, chat/leave"))
                #expect(!detail.contains("quote/loaded"))
            }
        }

        @Test func fieldsSentBesideTypeArePointedIntoThePayload() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let response = try await api.dispatch(
                    session, [TestActions.increase, ["type": "counter/set", "value": 4]])
                #expect(response.status == 422)
                let problem = try response.json()
                #expect(problem["field"] == "value")
                #expect(
                    problem["detail"]?.stringValue
                        == "action 1: payload field 'value' of 'counter/set' is invalid: is missing; 'value' was sent "
                        + #"beside "type", but fields go inside "payload": {"type": "counter/set", "payload": "#
                        + #"{"value": ...}}"#)
                // Missing for another reason: no hint.
                let plain = try await api.dispatch(session, ["type": "counter/set"])
                #expect(plain.status == 422)
                #expect(try plain.json()["detail"] == "payload field 'value' of 'counter/set' is invalid: is missing")
            }
        }

        /// The action types the OpenAPI description lets a client send (its `Action` schemas' `type` values) are
        /// the example app's client actions, no more and no fewer.
        @Test func theOpenAPIDescriptionListsExactlyTheActionsClientsMaySend() throws {
            let lines = try OpenAPIDescription.load().lines
            let start = try #require(lines.firstIndex(of: "    Action:"))
            let end = try #require(lines.firstIndex(of: "    ActionBatch:"))
            var documented: Set<String> = []
            for line in lines[start..<end] {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                let values: [Substring]
                if trimmed.hasPrefix("const: ") {
                    values = [trimmed.dropFirst("const: ".count)]
                } else if trimmed.hasPrefix("enum: [") {
                    values = trimmed.dropFirst("enum: [".count).dropLast().split(separator: ",")
                } else if trimmed.hasPrefix("- "), !trimmed.contains("$ref") {
                    values = [trimmed.dropFirst(2)]
                } else {
                    continue
                }
                documented.formUnion(values.map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.contains("/") })
            }
            #expect(documented == Set(ExampleApp.definition().clientActions.wireNames))
        }
    }
}
