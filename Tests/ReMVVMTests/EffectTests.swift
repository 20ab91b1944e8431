@_spi(ReMVVMServer) import ReMVVM
import ReMVVMTesting
import Synchronization
import Testing

@Suite("Effects")
struct EffectTests {
    @Test func effectFollowUpActionArrives() async throws {
        let store = makeDefinition().makeStore()
        try store.dispatch(SetCount(value: 5))
        try store.dispatch(Fetch())
        #expect(await eventually { store.state.counter == 105 })
        #expect(store.version == 3)
        #expect(await eventually { store.runningEffects == 0 })
    }

    @Test func throwingEffectIsReportedAndStoreKeepsWorking() async throws {
        let errors = Locked<[String]>([])
        var configuration = StoreConfiguration()
        configuration.onEffectError = { error in errors.withLock { $0.append("\(error)") } }
        let store = makeDefinition(configuration: configuration).makeStore()
        try store.dispatch(Fetch(fail: true))
        #expect(await eventually { errors.withLock { !$0.isEmpty } })
        #expect(errors.withLock { $0 }.first?.contains("effect 'fetch' failed") == true)
        try store.dispatch(Increment())
        #expect(store.state.counter == 1)
    }

    @Test func closingTheStoreCancelsRunningEffects() async throws {
        let started = Locked(false)
        let cancelled = Locked(false)
        var definition = makeDefinition()
        definition.middleware.append(
            HangMiddleware(started: { started.withLock { $0 = true } }, cancelled: { cancelled.withLock { $0 = true } })
        )
        let store = definition.makeStore()
        try store.dispatch(Hang())
        #expect(await eventually { started.withLock { $0 } })
        #expect(store.runningEffects == 1)
        store.close()
        #expect(await eventually { cancelled.withLock { $0 } })
    }

    @Test func effectsBeyondTheLimitAreRefusedAndReported() async throws {
        let errors = Locked<[String]>([])
        var configuration = StoreConfiguration()
        configuration.maxRunningEffects = 1
        configuration.onEffectError = { error in errors.withLock { $0.append("\(error)") } }
        var definition = makeDefinition(configuration: configuration)
        definition.middleware.append(SlowMiddleware())
        let store = definition.makeStore()
        try store.dispatch(Slow())
        try store.dispatch(Slow())
        #expect(errors.withLock { $0 } == ["effect not started: 1 effects are already running"])
        store.close()
    }

    @Test func runawayFollowUpLoopIsCut() async throws {
        let errors = Locked<[String]>([])
        var configuration = StoreConfiguration()
        configuration.maxFollowUpsPerSecond = 50
        configuration.onEffectError = { error in errors.withLock { $0.append("\(error)") } }
        var definition = makeDefinition(configuration: configuration)
        definition.middleware.append(LoopMiddleware())
        // The one-second window is on the store's clock: this one never moves, so the window never ends.
        definition.services.clock = TestClock()
        let store = definition.makeStore()
        try store.dispatch(Ping())
        #expect(await eventually { errors.withLock { !$0.isEmpty } })
        #expect(errors.withLock { $0 } == ["effect dispatch dropped: more than 50 follow-up actions in one second"])
        // The refused follow-up ends the loop for good: once no effect runs, nothing can dispatch again.
        #expect(await eventually { store.runningEffects == 0 })
        #expect(store.version == 51, "the first dispatch and exactly 50 follow-ups")
        try store.dispatch(Increment())
        #expect(store.state.counter == 1)
        store.close()
    }
}

struct Hang: StoreAction { static let wireName = "test/hang" }

struct HangMiddleware: ActionMiddleware {
    typealias State = TestState
    let started: @Sendable () -> Void
    let cancelled: @Sendable () -> Void
    func handle(_ action: Hang, context: inout MiddlewareContext<TestState>) -> MiddlewareResult {
        context.run { [started, cancelled] _ in
            started()
            do { try await Task.sleep(for: .seconds(60)) } catch { cancelled() }
        }
        return .block(reason: "handled by an effect")
    }
}

struct Slow: StoreAction { static let wireName = "test/slow" }

struct SlowMiddleware: ActionMiddleware {
    typealias State = TestState
    func handle(_ action: Slow, context: inout MiddlewareContext<TestState>) -> MiddlewareResult {
        context.run { _ in try await Task.sleep(for: .seconds(60)) }
        return .next(action)
    }
}

struct Ping: StoreAction { static let wireName = "test/ping" }

struct LoopMiddleware: ActionMiddleware {
    typealias State = TestState
    func handle(_ action: Ping, context: inout MiddlewareContext<TestState>) -> MiddlewareResult {
        context.run { effect in effect.dispatch(Ping()) }
        return .next(action)
    }
}
