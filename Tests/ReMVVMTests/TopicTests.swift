import Foundation
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMTesting
import Synchronization
import Testing

/// A chat-like app for the topic tests: a state names the rooms it is in and keeps what it heard.
struct RoomState: Equatable, Sendable {
    var rooms: [String] = []
    var heard: [String] = []
    var gaps = 0
}

struct EnterRoom: StoreAction, Equatable {
    static let wireName = "room/enter"
    var room: String
}

struct ExitRoom: StoreAction, Equatable {
    static let wireName = "room/exit"
    var room: String
}

struct Say: StoreAction, Equatable {
    static let wireName = "room/say"
    var room: String
    var text: String
}

struct Heard: StoreAction, Equatable {
    static let wireName = "room/heard"
    var text: String
}

/// Publishes `room/say` as `room/heard`; blocks a heard "blocked" and turns a heard "shout" into "SHOUT".
struct RoomMiddleware: Middleware {
    func handle(_ action: any StoreAction, context: inout MiddlewareContext<RoomState>) -> MiddlewareResult {
        switch action {
        case let say as Say:
            do {
                try context.publish(Heard(text: say.text), to: say.room)
            } catch {
                return .block(reason: "\(error)")
            }
            return .next(say)
        case let heard as Heard where context.topic != nil && heard.text == "blocked":
            return .block(reason: "not this one")
        case let heard as Heard where heard.text == "shout":
            return .next(Heard(text: "SHOUT"))
        default:
            return .next(action)
        }
    }
}

enum RoomApp {
    static let reducer = AnyReducer<RoomState>(
        .on(EnterRoom.self) { state, action in
            var state = state
            if !state.rooms.contains(action.room) { state.rooms.append(action.room) }
            return state
        },
        .on(ExitRoom.self) { state, action in
            var state = state
            state.rooms.removeAll { $0 == action.room }
            return state
        },
        .on(Heard.self) { state, action in
            var state = state
            state.heard.append(action.text)
            return state
        },
        .on(TopicGap.self) { state, _ in
            var state = state
            state.gaps += 1
            return state
        }
    )

    static func definition(
        hub: TopicHub = TopicHub(), configure: (inout StoreConfiguration) -> Void = { _ in }
    ) -> StoreDefinition<RoomState> {
        var configuration = StoreConfiguration()
        configure(&configuration)
        return StoreDefinition(
            initialState: RoomState(), reducer: reducer, middleware: [RoomMiddleware()], projections: Projections(),
            configuration: configuration, subscriptions: TopicSubscriptions(from: \.rooms) { $0 }, topics: hub)
    }
}

/// Waits, with a deadline, until `condition` holds of the store's state (deliveries from other threads).
func eventually(
    _ store: Store<RoomState>, timeout: Duration = .seconds(10), _ condition: (RoomState) -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition(store.state) { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition(store.state)
}

@Suite("Topics")
struct TopicTests {
    @Test func aPublishReachesEverySessionWhoseStateSubscribesAndNoOther() throws {
        let app = RoomApp.definition()
        let (ada, bob, eve) = (app.makeStore(), app.makeStore(), app.makeStore())
        try ada.dispatch(EnterRoom(room: "room/lobby"))
        try bob.dispatch(EnterRoom(room: "room/lobby"))
        try eve.dispatch(EnterRoom(room: "room/other"))
        #expect(ada.subscribedTopics == ["room/lobby"])
        #expect(app.hub.subscriberCount(of: "room/lobby") == 2)

        try ada.dispatch(Say(room: "room/lobby", text: "hello"))
        // Up to 64 subscribers are served on the publisher's thread, before its dispatch returns.
        #expect(ada.state.heard == ["hello"])
        #expect(bob.state.heard == ["hello"])
        #expect(eve.state.heard == [])
        // Each message is received through the middleware, which may change or block it.
        try bob.dispatch(Say(room: "room/lobby", text: "shout"))
        try bob.dispatch(Say(room: "room/lobby", text: "blocked"))
        #expect(ada.state.heard == ["hello", "SHOUT"])
        #expect(ada.topicPositions == ["room/lobby": 3])
        #expect(eve.state.heard == [])
    }

    @Test func publishingFromOutsideASessionUsesTheSameHub() throws {
        let app = RoomApp.definition()
        let store = app.makeStore()
        try store.dispatch(EnterRoom(room: "news"))
        #expect(try app.hub.publish(Heard(text: "from the admin"), to: "news") == 1)
        #expect(store.state.heard == ["from the admin"])
        #expect(try app.hub.publish(Heard(text: "twice"), to: ["news", "elsewhere"]) == [2, 1])
        #expect(store.state.heard == ["from the admin", "twice"])
    }

    @Test func leavingStopsDeliveryAndJoiningAgainStartsFromTheRetainedHistory() throws {
        let app = RoomApp.definition()
        let store = app.makeStore()
        try store.dispatch(EnterRoom(room: "r"))
        try app.hub.publish(Heard(text: "one"), to: "r")
        try store.dispatch(ExitRoom(room: "r"))
        #expect(store.subscribedTopics.isEmpty)
        #expect(app.hub.subscriberCount(of: "r") == 0)
        let version = store.version
        try app.hub.publish(Heard(text: "two"), to: "r")
        #expect(store.state.heard == ["one"])
        #expect(store.version == version)
        try store.dispatch(EnterRoom(room: "r"))
        #expect(store.state.heard == ["one", "one", "two"])
    }

    @Test func aNewSubscriberReceivesTheRetainedHistoryFirst() throws {
        var configuration = TopicConfiguration()
        configuration.retainedMessages = 5
        let app = RoomApp.definition(hub: TopicHub(configuration: configuration))
        for index in 1...8 { try app.hub.publish(Heard(text: "\(index)"), to: "r") }
        #expect(app.hub.history(of: "r").map(\.sequence) == [4, 5, 6, 7, 8])
        let store = app.makeStore()
        try store.dispatch(EnterRoom(room: "r"))
        try app.hub.publish(Heard(text: "9"), to: "r")
        #expect(store.state.heard == ["4", "5", "6", "7", "8", "9"])
    }

    @Test func concurrentPublishersProduceOneOrderThatEverySubscriberSees() async throws {
        let app = RoomApp.definition()
        let members = (0..<5).map { _ in app.makeStore() }
        for member in members { try member.dispatch(EnterRoom(room: "busy")) }
        let publishers = 4
        let each = 50
        await withTaskGroup(of: Void.self) { group in
            for publisher in 0..<publishers {
                group.addTask {
                    // Half through a member's middleware, half from outside.
                    for index in 0..<each {
                        let text = "\(publisher)-\(index)"
                        if publisher.isMultiple(of: 2) {
                            _ = try? members[publisher].dispatch(Say(room: "busy", text: text))
                        } else {
                            _ = try? app.hub.publish(Heard(text: text), to: "busy")
                        }
                    }
                }
            }
        }
        let total = publishers * each
        for member in members { #expect(await eventually(member) { $0.heard.count == total }) }
        let order = app.hub.history(of: "busy")  // The last 50, in sequence order.
        #expect(order.map(\.sequence) == Array(UInt64(total - 49)...UInt64(total)))
        let expected = order.map { ($0.action as? Heard)?.text ?? "" }
        for member in members {
            #expect(member.state.heard.suffix(50) == expected[...])
            #expect(Set(member.state.heard).count == total)  // None twice.
            // Each publisher's own messages keep the order it published them in.
            for publisher in 0..<publishers {
                let own = member.state.heard.filter { $0.hasPrefix("\(publisher)-") }
                #expect(own == (0..<each).map { "\(publisher)-\($0)" })
            }
        }
    }

    @Test func aRestoredSessionNeitherLosesNorRepeatsAMessage() throws {
        let app = RoomApp.definition()
        let store = app.makeStore()
        let log = Mutex<[CommitRecord]>([])
        store.onCommit { record in log.withLock { $0.append(record) } }
        try store.dispatch(EnterRoom(room: "r"))
        for text in ["a", "b", "blocked", "c"] { try app.hub.publish(Heard(text: text), to: "r") }
        #expect(store.state.heard == ["a", "b", "c"])
        // Every received message is logged with its position, the blocked one too.
        let receipts = log.withLock { $0 }.flatMap(\.actions).compactMap { $0 as? TopicReceipt }
        #expect(receipts.map(\.sequence) == [1, 2, 3, 4])
        store.close()
        #expect(app.hub.subscriberCount(of: "r") == 0)
        // Published while the session is away.
        for text in ["d", "e"] { try app.hub.publish(Heard(text: text), to: "r") }

        // Rebuilt from its log, as durable storage does: replayed, then its topics started.
        let rebuilt = app.makeStore(state: RoomState(), version: 0)
        for record in log.withLock({ $0 }) { try rebuilt.replay(record) }
        #expect(rebuilt.state.heard == ["a", "b", "c"])
        #expect(rebuilt.subscribedTopics.isEmpty)
        rebuilt.startTopics()
        #expect(rebuilt.state.heard == ["a", "b", "c", "d", "e"])
        try app.hub.publish(Heard(text: "f"), to: "r")
        #expect(rebuilt.state.heard == ["a", "b", "c", "d", "e", "f"])
        #expect(rebuilt.state.gaps == 0)
    }

    @Test func aSessionAwayLongerThanTheHistoryIsToldOfTheGap() throws {
        var configuration = TopicConfiguration()
        configuration.retainedMessages = 3
        let app = RoomApp.definition(hub: TopicHub(configuration: configuration))
        let store = app.makeStore()
        try store.dispatch(EnterRoom(room: "r"))
        try app.hub.publish(Heard(text: "1"), to: "r")
        let positions = store.topicPositions
        store.close()
        for index in 2...7 { try app.hub.publish(Heard(text: "\(index)"), to: "r") }

        let rebuilt = app.makeStore(state: store.state, version: store.version)
        rebuilt.restoreTopicPositions(positions)
        rebuilt.startTopics()
        #expect(rebuilt.state.gaps == 1)
        #expect(rebuilt.state.heard == ["1", "5", "6", "7"])
        #expect(rebuilt.topicPositions == ["r": 7])
        #expect(app.hub.statistics.gaps == 1)
    }

    @Test(arguments: ["", " lobby", "lobby ", "a\nb", "tab\there", "nul\u{0}", String(repeating: "x", count: 257)])
    func anInvalidTopicNameIsRefusedWithWhatIsWrong(_ name: String) throws {
        let hub = TopicHub()
        #expect(throws: TopicError.self) { try hub.publish(Heard(text: "x"), to: name) }
        do {
            try hub.publish(Heard(text: "x"), to: name)
        } catch {
            #expect(error.kind == .invalidName)
            #expect(error.description.contains("topic name"))
        }
    }

    @Test(arguments: ["room/lobby", "chat/Café", "orders:42", "a b", String(repeating: "x", count: 256)])
    func aValidTopicNameIsAccepted(_ name: String) throws {
        #expect(try TopicHub().publish(Heard(text: "x"), to: name) == 1)
    }

    @Test func aPublishTooLargeOrToTooManyTopicsIsRefusedAndNothingIsPublished() throws {
        var configuration = TopicConfiguration()
        configuration.maxMessageBytes = 100
        configuration.maxTopicsPerPublish = 2
        let hub = TopicHub(configuration: configuration)
        #expect(throws: TopicError(.tooManyTopics, "a publish may name at most 2 topics, not 3")) {
            try hub.publish(Heard(text: "x"), to: ["a", "b", "c"])
        }
        do {
            try hub.publish(Heard(text: String(repeating: "y", count: 200)), to: "a")
            Issue.record("a publish over the size limit was accepted")
        } catch {
            #expect(error.kind == .messageTooLarge)
            #expect(error.description.contains("more than the 100 a topic message may be"))
        }
        #expect(hub.history(of: "a").isEmpty)
        #expect(hub.statistics.published == 0)
    }

    @Test func aSessionsSubscriptionsAreCappedAndTheRestReported() throws {
        let reported = Mutex<[TopicError]>([])
        let app = RoomApp.definition {
            $0.maxSubscriptions = 2
            $0.onTopicError = { error in reported.withLock { $0.append(error) } }
        }
        let store = app.makeStore()
        try store.dispatch([EnterRoom(room: "a"), EnterRoom(room: "b"), EnterRoom(room: "c"), EnterRoom(room: "")])
        #expect(store.subscribedTopics == ["a", "b"])
        #expect(reported.withLock { $0.map(\.kind) } == [.tooManyTopics, .invalidName])
        try app.hub.publish(Heard(text: "c only"), to: "c")
        #expect(store.state.heard.isEmpty)
    }

    @Test func aLargeBacklogIsDeliveredInBoundedPasses() async throws {
        var configuration = TopicConfiguration()
        configuration.retainedMessages = 100
        configuration.maxDeliveriesPerPass = 10
        let app = RoomApp.definition(hub: TopicHub(configuration: configuration))
        for index in 1...100 { try app.hub.publish(Heard(text: "\(index)"), to: "r") }
        let store = app.makeStore()
        try store.dispatch(EnterRoom(room: "r"))
        #expect(await eventually(store) { $0.heard.count == 100 })
        #expect(store.state.heard == (1...100).map(String.init))
        // One commit per pass of at most 10 messages; with the default scheduler all of them on the joining
        // thread, one after another.
        #expect(store.version == 1 + 10)
        let statistics = app.hub.statistics
        #expect(statistics.passes == 10)
        #expect(statistics.deferredPasses == 9)
        #expect(statistics.delivered == 100)
    }

    @Test func passesAfterTheFirstAreOfferedToTheHubsSchedulerOneAtATime() throws {
        var configuration = TopicConfiguration()
        configuration.retainedMessages = 100
        configuration.maxDeliveriesPerPass = 10
        let hub = TopicHub(configuration: configuration)
        let scheduler = QueueScheduler()
        hub.schedulePasses(on: scheduler)
        let app = RoomApp.definition(hub: hub)
        for index in 1...100 { try app.hub.publish(Heard(text: "\(index)"), to: "r") }
        let store = app.makeStore()
        try store.dispatch(EnterRoom(room: "r"))
        // The joining dispatch ran one pass; the next one waits in the scheduler, which holds one job per inbox.
        #expect(store.state.heard == (1...10).map(String.init))
        #expect(scheduler.count == 1)
        #expect(scheduler.runAll() == 9)
        #expect(store.state.heard == (1...100).map(String.init))
        #expect(store.version == 1 + 10)
        #expect(app.hub.statistics.deferredPasses == 9)
    }

    @Test func aFanOutBeyond64SubscribersIsOfferedInChunksOf64() throws {
        let hub = TopicHub()
        let scheduler = QueueScheduler()
        hub.schedulePasses(on: scheduler)
        let app = RoomApp.definition(hub: hub)
        let members = (0..<130).map { _ in app.makeStore() }
        for member in members { try member.dispatch(EnterRoom(room: "big")) }
        try app.hub.publish(Heard(text: "to all"), to: "big")
        // Nothing delivered on the publishing thread: 64 + 64 + 2 inboxes, one job each.
        #expect(members.allSatisfy { $0.state.heard.isEmpty })
        #expect(scheduler.count == 3)
        #expect(scheduler.runAll() == 3)
        #expect(members.allSatisfy { $0.state.heard == ["to all"] })
    }

    @Test func withTheDefaultSchedulerALargeFanOutIsDeliveredBeforeThePublishReturns() throws {
        let app = RoomApp.definition()
        let members = (0..<130).map { _ in app.makeStore() }
        for member in members { try member.dispatch(EnterRoom(room: "big")) }
        try app.hub.publish(Heard(text: "to all"), to: "big")
        #expect(members.allSatisfy { $0.state.heard == ["to all"] })
    }

    @Test func aStoreWithoutSubscriptionsFollowsNoTopicAndAClosedStoreLeavesItsTopics() throws {
        let plain = Store(state: 0, reducer: AnyReducer<Int>())
        plain.startTopics()
        #expect(plain.subscribedTopics.isEmpty)
        let app = RoomApp.definition()
        let store = app.makeStore()
        try store.dispatch(EnterRoom(room: "r"))
        store.close()
        #expect(app.hub.subscriberCount(of: "r") == 0)
        try app.hub.publish(Heard(text: "late"), to: "r")
        #expect(store.state.heard.isEmpty)
    }
}

@Suite("Topic retention")
struct TopicRetentionTests {
    private static func hub(_ clock: TestClock, retention: Duration = .seconds(60)) -> TopicHub {
        var configuration = TopicConfiguration()
        configuration.retention = retention
        return TopicHub(configuration: configuration, clock: clock)
    }

    @Test func aTopicWithNoSubscriberAndNoRecentMessageIsDroppedAndStartsOver() throws {
        let clock = TestClock()
        let app = RoomApp.definition(hub: Self.hub(clock))
        let member = app.makeStore()
        try member.dispatch(EnterRoom(room: "followed"))
        try app.hub.publish(Heard(text: "one"), to: "followed")
        try app.hub.publish(Heard(text: "one"), to: "idle")
        try app.hub.publish(Heard(text: "two"), to: "idle")
        clock.advance(by: .seconds(59))
        #expect(app.hub.sweep().dropped.isEmpty)
        #expect(app.hub.topicCount == 2)

        clock.advance(by: .seconds(1))
        let swept = app.hub.sweep()
        #expect(swept.dropped == [TopicSweep.Dropped(topic: "idle", last: 2)])
        #expect(swept.followed == ["followed"])
        #expect(app.hub.topicCount == 1)
        #expect(app.hub.history(of: "idle").isEmpty)
        #expect(app.hub.statistics.dropped == 1)
        // Published to again, it starts over; a subscriber keeps a topic however old its last message.
        #expect(try app.hub.publish(Heard(text: "again"), to: "idle") == 1)
        clock.advance(by: .seconds(3600))
        #expect(app.hub.sweep().dropped.map(\.topic) == ["idle"])
        #expect(app.hub.history(of: "followed").count == 1)
        #expect(try app.hub.publish(Heard(text: "two"), to: "followed") == 2)
        #expect(member.state.heard == ["one", "two"])
    }

    @Test func aMessageNewerThanTheRetentionKeepsATopicWithoutSubscribers() throws {
        let clock = TestClock()
        let hub = Self.hub(clock)
        try hub.publish(Heard(text: "old"), to: "room")
        clock.advance(by: .seconds(50))
        try hub.publish(Heard(text: "new"), to: "room")
        clock.advance(by: .seconds(50))
        #expect(hub.sweep().dropped.isEmpty)
        clock.advance(by: .seconds(10))
        #expect(hub.sweep().dropped == [TopicSweep.Dropped(topic: "room", last: 2)])
    }

    @Test func aClosedOrDepartedSessionNoLongerKeepsItsRoomAlive() throws {
        let clock = TestClock()
        let app = RoomApp.definition(hub: Self.hub(clock))
        let (ada, bob) = (app.makeStore(), app.makeStore())
        try ada.dispatch(EnterRoom(room: "a"))
        try bob.dispatch(EnterRoom(room: "b"))
        clock.advance(by: .seconds(120))
        #expect(app.hub.sweep().dropped.isEmpty)
        ada.close()  // A deleted session's store is closed.
        try bob.dispatch(ExitRoom(room: "b"))
        #expect(Set(app.hub.sweep().dropped.map(\.topic)) == ["a", "b"])
        #expect(app.hub.topicCount == 0)
        // Joining again makes the topic anew.
        try bob.dispatch(EnterRoom(room: "b"))
        #expect(try app.hub.publish(Heard(text: "hi"), to: "b") == 1)
        #expect(bob.state.heard == ["hi"])
    }

    @Test func tidyHandsTheDroppedTopicsToTheLogOutsideAnyLock() throws {
        let clock = TestClock()
        let hub = Self.hub(clock)
        let log = ForgettingLog()
        try hub.attach(log, actions: RoomApp.reducer.actions)
        try hub.publish(Heard(text: "x"), to: "room")
        #expect(try hub.tidy() == 0)
        clock.advance(by: .seconds(60))
        #expect(try hub.tidy() == 1)
        #expect(log.forgotten.withLock { $0 } == [TopicSweep(dropped: [.init(topic: "room", last: 1)])])
    }
}

/// A topic log in memory that records what it was told to forget.
final class ForgettingLog: TopicLog {
    let forgotten = Mutex<[TopicSweep]>([])
    private let last = Mutex<[String: UInt64]>([:])

    func retainedTopicMessages() throws -> [TopicLogEntry] { [] }

    func append(topic: String, action: Data, retaining: Int) throws -> UInt64 {
        last.withLock { last in
            last[topic, default: 0] += 1
            return last[topic, default: 0]
        }
    }

    func forget(_ sweep: TopicSweep, retention: Duration) throws {
        forgotten.withLock { $0.append(sweep) }
    }
}

extension StoreDefinition {
    /// The hub these tests give their definitions (a fresh one, which nothing hears, if a test forgot).
    var hub: TopicHub { topics ?? TopicHub() }
}
