import ExampleApp
import HTTPTestClient
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import ReMVVMTesting
import Synchronization
import Testing

extension EndToEnd {
    /// Effects that go wrong, over HTTP: one that throws and one that dispatches itself in a loop are reported and
    /// contained, and the session goes on answering. (Hanging effects: `deletingASessionCancelsItsRunningEffects`.)
    @Suite("Faulty effects over HTTP")
    struct EffectFaultTests {
        /// The example app plus `test/explode` and `test/runaway`, with a low follow-up limit and its effect
        /// errors collected in `errors`.
        static func definition(errors: EffectErrors) -> StoreDefinition<AppState> {
            var configuration = StoreConfiguration()
            configuration.maxFollowUpsPerSecond = 20
            configuration.onEffectError = { error in errors.add(error) }
            var services = TestApp.services
            services.clock = TestClock()  // The follow-up window never ends: the cut comes after exactly 20.
            return StoreDefinition(
                initialState: AppState(),
                reducer: ExampleApp.reducer,
                middleware: [ExplodingMiddleware(), RunawayMiddleware()] + ExampleApp.middleware,
                projections: ExampleApp.projections,
                clientActions: ExampleApp.clientActions + [ExplodeAction.self, RunawayAction.self],
                services: services,
                configuration: configuration
            )
        }

        @Test func aThrowingEffectIsReportedAndTheSessionKeepsWorking() async throws {
            let errors = EffectErrors()
            try await withTestServer(Self.definition(errors: errors)) { server in
                let api = try server.client()
                let session = try await api.createSession()
                #expect(try await api.dispatch(session, ["type": "test/explode"]).status == 200)
                #expect(await eventually { errors.contains("boom") })
                let next = try await api.dispatch(session, TestActions.increase, query: "?views=counter")
                #expect(next.status == 200)
                #expect(try next.json()["views"]?["counter"] == ["counter": "1"])
                #expect(try await eventually { try await api.gauge("remvvm_running_effects") == 0 })
            }
        }

        @Test func aRunawayEffectLoopIsCutAndTheSessionKeepsWorking() async throws {
            let errors = EffectErrors()
            try await withTestServer(Self.definition(errors: errors)) { server in
                let api = try server.client()
                let session = try await api.createSession()
                #expect(try await api.dispatch(session, ["type": "test/runaway"]).status == 200)
                #expect(await eventually { errors.contains("follow-up actions") })
                // Cut: once no effect runs, nothing can dispatch again. Each follow-up was one commit: the
                // dispatch and exactly 20 follow-ups, since the store's clock never ends the window.
                #expect(try await eventually { try await api.gauge("remvvm_running_effects") == 0 })
                let settled = try await api.read(session, query: "?views=counter").storeVersion
                #expect(settled.flatMap(TestSession.number(of:)) == 21, "the loop ran to \(settled ?? "?")")
                let next = try await api.dispatch(session, TestActions.increase, query: "?views=counter")
                #expect(next.status == 200)
                #expect(try next.json()["views"]?["counter"] == ["counter": "1"])
            }
        }
    }
}

/// The effect errors a store reported, as text.
final class EffectErrors: Sendable {
    private let list = Mutex<[String]>([])

    func add(_ error: EffectError) { list.withLock { $0.append("\(error)") } }

    /// Whether any error mentions `text`.
    func contains(_ text: String) -> Bool { list.withLock { $0.contains { $0.contains(text) } } }
}

/// `test/explode`: its effect throws.
struct ExplodeAction: StoreAction {
    static let wireName = "test/explode"
}

struct ExplodingMiddleware: ActionMiddleware {
    typealias State = AppState

    struct Boom: Error, CustomStringConvertible {
        var description: String { "boom" }
    }

    func handle(_ action: ExplodeAction, context: inout MiddlewareContext<AppState>) -> MiddlewareResult {
        context.run { _ in throw Boom() }
        return .next(action)
    }
}

/// `test/runaway`: its effect dispatches `test/runaway` again, for ever unless the store cuts it.
struct RunawayAction: StoreAction {
    static let wireName = "test/runaway"
}

struct RunawayMiddleware: ActionMiddleware {
    typealias State = AppState

    func handle(_ action: RunawayAction, context: inout MiddlewareContext<AppState>) -> MiddlewareResult {
        context.run { effect in effect.dispatch(RunawayAction()) }
        return .next(action)
    }
}
