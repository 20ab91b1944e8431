import CounterShared
import Foundation
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

// An effect: a task the store owns, sleeping on the services' clock (a TestClock in tests), then dispatching.
struct Later: ActionMiddleware {
    typealias State = Counter
    func handle(_ action: IncreaseLater, context: inout MiddlewareContext<Counter>) -> MiddlewareResult {
        context.run { effect in
            try await effect.services.clock.sleep(for: .seconds(action.seconds), tolerance: nil)
            effect.dispatch(Increase())
        }
        return .next(action)
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
            middleware: [NoNegatives(), Later()],
            projections: views,
            // What clients may send; anything else (an effect's result, say) is refused with 403.
            clientActions: [Increase.self, SetCount.self, IncreaseLater.self]
        )
    }
}

// Serve it on the port given as the first argument (default 8080) until SIGTERM or SIGINT.
var configuration = ServerConfiguration()
configuration.port = CommandLine.arguments.dropFirst().first.flatMap { UInt16($0) } ?? 8080
do {
    try await StoreServer(CounterApp.definition, configuration: configuration).runService()
} catch {
    // A port in use, say: one line and a failure status, not a crash.
    FileHandle.standardError.write(Data("counter-example: \(error)\n".utf8))
    exit(1)
}
