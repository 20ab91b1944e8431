import CounterShared
import ReMVVM
import ReMVVMServer

// The state: a value only the server holds. The actions and the view model are in CounterShared.
struct Counter: Sendable, Equatable { var count = 0 }

// Middleware sees each action before the reducers and may block it.
struct NoNegatives: ActionMiddleware {
    typealias State = Counter
    func handle(_ action: SetCount, context: inout MiddlewareContext<Counter>) -> MiddlewareResult {
        action.count < 0 ? .block(reason: "the count cannot go below zero") : .next(action)
    }
}

// The app, in a type: tests import it, and main.swift's globals are not set up in a test.
enum CounterApp {
    static var definition: StoreDefinition<Counter> {
        var views = Projections<Counter>()
        views.add("counter") { CounterView(count: $0.count) }
        return StoreDefinition(
            initialState: Counter(),
            reducer: AnyReducer(
                .on(Increase.self) { state, _ in Counter(count: state.count + 1) },
                .on(SetCount.self) { _, action in Counter(count: action.count) }
            ),
            middleware: [NoNegatives()],
            projections: views
        )
    }
}

// Serve it on the port given as the first argument (default 8080) until SIGTERM or SIGINT.
var configuration = ServerConfiguration()
configuration.port = CommandLine.arguments.dropFirst().first.flatMap { UInt16($0) } ?? 8080
try await StoreServer(CounterApp.definition, configuration: configuration).runService()
