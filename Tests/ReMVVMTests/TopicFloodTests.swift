@_spi(ReMVVMServer) import ReMVVM
import Testing

/// A room of one: the state counts what it heard, so that a delivery costs the same at the first message and
/// at the last.
struct FloodState: Equatable, Sendable {
    var rooms: [String] = []
    var heard = 0
}

enum FloodApp {
    static let reducer = AnyReducer<FloodState>(
        .on(EnterRoom.self) { state, action in
            var state = state
            state.rooms.append(action.room)
            return state
        },
        .on(Heard.self) { state, _ in
            var state = state
            state.heard += 1
            return state
        }
    )

    static func definition() -> StoreDefinition<FloodState> {
        StoreDefinition(
            initialState: FloodState(), reducer: reducer, projections: Projections(),
            subscriptions: TopicSubscriptions(from: \.rooms) { $0 }, topics: TopicHub())
    }
}

/// The abuse suite's posting flood (issue 44): one session alone in a room, posting without end, once crashed
/// the process with a stack overflow after about 130,000 deliveries, each slower than the last.
@Suite("Abuse: posting flood")
struct TopicFloodTests {
    @Test func twoHundredThousandDeliveriesToOneSessionTakeFlatTime() throws {
        let app = FloodApp.definition()
        let store = app.makeStore()
        try store.dispatch(EnterRoom(room: "room/flood"))
        let total = 200_000
        let slice = 5_000
        let clock = ContinuousClock()
        let message = Heard(text: "x")
        var slices: [Duration] = []
        var start = clock.now
        for index in 1...total {
            // One subscriber: delivered on this thread, one pass per publish, before publish returns.
            try app.hub.publish(message, to: "room/flood")
            if index.isMultiple(of: slice) {
                let now = clock.now
                slices.append(now - start)
                // Bounded on a server whose deliveries slow down: stop once a slice takes ten times the fastest.
                if slices.count > 4, let fastest = slices.prefix(4).min(), now - start > fastest * 10 { break }
                start = now
            }
        }
        #expect(store.state.heard == total)
        #expect(app.hub.statistics.passes >= total)
        // The first and the last 20,000 deliveries, each by its fastest 5,000: other tests share the process
        // and the machine. Each delivery used to take longer than the one before, until the stack overflowed.
        let first = try #require(slices.prefix(4).min())
        let last = try #require(slices.suffix(4).min())
        #expect(last <= first * 3, "5,000 deliveries took \(first) at first, \(last) at the end")
    }
}
