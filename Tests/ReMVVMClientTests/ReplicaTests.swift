import ReMVVMJSON
import Testing

@testable import ReMVVMClient

/// The replica and the event-stream parser as state machines, with no I/O.
@Suite struct ReplicaTests {
    private let v1 = StoreVersion("e.1")
    private let v2 = StoreVersion("e.2")
    private let v3 = StoreVersion("e.3")

    @Test func aChangeFromTheHeldVersionIsAppliedAndOthersAreIgnoredOrStale() {
        var replica = Replica()
        replica.applySnapshot(version: v1, views: ["counter": ["counter": "1"]])
        let patch: JSONValue = ["patch": [["op": "replace", "path": "/counter", "value": "2"]]]
        #expect(replica.applyChange(from: v1, to: v2, entries: ["counter": patch]) == .applied)
        #expect(replica.views["counter"] == ["counter": "2"])
        #expect(replica.applyChange(from: v1, to: v2, entries: ["counter": patch]) == .ignored)
        #expect(replica.applyChange(from: StoreVersion("e.7"), to: StoreVersion("e.8"), entries: [:]) == .stale)
        let broken: JSONValue = ["patch": [["op": "remove", "path": "/nothing"]]]
        #expect(replica.applyChange(from: v2, to: v3, entries: ["counter": broken]) == .stale)
        #expect(replica.version == v2)
    }

    @Test func aDispatchAnswerIsTakenOnlyWhenNewerAndWhole() {
        var replica = Replica()
        replica.applySnapshot(version: v2, views: ["counter": ["counter": "2"], "login": [:]])
        let older = replica.applyDispatch(version: v1, views: ["counter": ["counter": "1"], "login": [:]])
        let replay = replica.applyDispatch(version: v3, views: [:])  // A replayed answer carries no views.
        let newer = replica.applyDispatch(version: v3, views: ["counter": ["counter": "3"], "login": [:]])
        #expect(!older && !replay && newer)
        #expect(replica.version == v3 && replica.views["counter"] == ["counter": "3"])
    }

    @Test func aResetReplacesWhateverTheVersion() {
        var replica = Replica()
        replica.applySnapshot(version: v3, views: ["counter": ["counter": "3"]])
        replica.applyReset(to: StoreVersion("f.1"), entries: ["counter": ["full": ["counter": "0"]]])
        #expect(replica.version == StoreVersion("f.1") && replica.views["counter"] == ["counter": "0"])
    }

    @Test func versionsOfOneEpochAreOrderedByNumber() {
        #expect(v1.isBehind(v2) && !v2.isBehind(v1) && !v1.isBehind(v1))
        #expect(!StoreVersion("a.1").isBehind(StoreVersion("b.2")))
        #expect(StoreVersion("a.9").holds(StoreVersion("b.2")))
    }

    @Test func theParserCutsEventsAtBlankLinesAcrossChunks() {
        var parser = EventStreamParser()
        #expect(parser.feed(Array("retry: 2000\n\n: hb\n\nid: e.1\nevent: sna".utf8)).isEmpty)
        let events = parser.feed(Array("pshot\ndata: {\"a\":\r\ndata: 1}\n\nevent: end\ndata: {}\n\n".utf8))
        #expect(
            events == [
                ServerSentEvent(event: "snapshot", data: "{\"a\":\n1}", id: "e.1"),
                ServerSentEvent(event: "end", data: "{}", id: nil),
            ])
    }
}
