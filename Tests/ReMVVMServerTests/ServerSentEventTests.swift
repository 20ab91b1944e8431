@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import Testing

@testable import ReMVVMServer

/// The byte-level writer of change events gives what the general `ServerSentEvent` writer gives.
@Suite("Server-Sent Event bytes")
struct ServerSentEventTests {
    @Test(arguments: [
        #"{"from":"e.1","to":"e.2","views":{}}"#, "", "plain text", "a\nb", "a\n\nb\n", "é ünïcode",
    ])
    func theBytesWriterMatchesTheGeneralWriter(data: String) {
        let fast = ServerSentEvent.bytes(id: "e.2", event: "patch", data: Array(data.utf8))
        let general = ServerSentEvent(id: "e.2", event: "patch", data: data).bytes
        #expect(fast == general)
    }

    /// CR LF, LF and CR all end a line (the format's line ends): each line is a `data:` line of its own, so no raw CR
    /// reaches the client, which would read what follows it as a field.
    @Test func everyLineEndStartsADataLine() {
        let bytes = ServerSentEvent.bytes(id: "e.1", event: "patch", data: Array("a\r\nb\rc\nd".utf8))
        #expect(
            String(decoding: bytes, as: UTF8.self) == "id: e.1\nevent: patch\ndata: a\ndata: b\ndata: c\ndata: d\n\n")
    }

    @Test func aChangeEventIsIdEventAndOneDataLine() {
        let bytes = ServerSentEvent.bytes(id: "e.7", event: "reset", data: Array(#"{"a":1}"#.utf8))
        #expect(String(decoding: bytes, as: UTF8.self) == "id: e.7\nevent: reset\ndata: {\"a\":1}\n\n")
    }

    /// An answer read once writes its event itself; a shared one writes it once for all its readers. Both give
    /// the same bytes: `patch` for changes, `reset` when the client must replace its views.
    @Test(arguments: [nil, ChangeFeed.ResetReason.expired, .epoch, .ahead])
    func anAnswerGivesTheSameEventSharedOrNot(reset: ChangeFeed.ResetReason?) {
        let body = Array(#"{"to":"e.3","views":{}}"#.utf8)
        let answer = ChangeFeed.Answer(body: body, to: 3, version: "e.3", hasChanges: true, reset: reset)
        let expected = ServerSentEvent.bytes(id: "e.3", event: reset == nil ? "patch" : "reset", data: body)
        let shared = answer.sharing()
        #expect(answer.event == expected)
        #expect(shared.event == expected)
        #expect(shared.event == expected, "read again from the shared bytes")
        #expect(!answer.isShared && shared.isShared)
    }
}

/// Change-feed bodies are written straight into bytes; they must be what serializing the same value gives.
@Suite("Change feed bodies")
struct ChangeFeedBodyTests {
    @Test func bodiesAreTheSerializationOfTheEquivalentValue() throws {
        let views: [(name: String, value: JSONValue)] = [
            ("quote", ["text": "a\"b"]), ("b", [1, 2]), ("B", .null), ("é", "x"), ("a", ["z": 1, "y": [true]]),
        ]
        for count in [0, 1, 2, views.count] {
            let chosen = Array(views.prefix(count))
            // Every other view whole: one answer can carry both forms.
            let forms = chosen.indices.map { $0 % 2 == 0 ? ChangeFeed.Form.patch : .full }
            let body = ChangeFeed.body(
                [("from", .string("e.1")), ("to", .string("e.2"))],
                views: zip(chosen, forms).map { .init(name: $0.name, form: $1, json: $0.value.serialized()) })
            var expected: [String: JSONValue] = [:]
            for (view, form) in zip(chosen, forms) {
                expected[view.name] = [form == .patch ? "patch" : "full": view.value]
            }
            let value: JSONValue = ["from": "e.1", "to": "e.2", "views": .object(expected)]
            #expect(body == value.serialized(), "\(count) views")
        }
        // Literal members, and a string member that needs escaping (longer than the size written ahead).
        let reset = ChangeFeed.body(
            [("from", .literal("null")), ("reason", .string("a\"\n\u{1}é")), ("reset", .literal("true"))],
            views: [.init(name: "b", form: .full, json: JSONValue.array([1]).serialized())])
        let value: JSONValue = [
            "from": .null, "reason": "a\"\n\u{1}é", "reset": true, "views": ["b": ["full": [1]]],
        ]
        #expect(reset == value.serialized())
    }
}
