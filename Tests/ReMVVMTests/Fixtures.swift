@_spi(ReMVVMServer) import ReMVVM
import ReMVVMTesting
import Synchronization

/// A small app for the core's tests: a counter and a name, each in its own substate.
struct TestState: Equatable, Sendable {
    var counter = 0
    var name = ""
}

struct Increment: StoreAction, Equatable {
    static let wireName = "test/increment"
}

struct Rename: StoreAction, Equatable {
    static let wireName = "test/rename"
    var name: String
}

struct SetCount: StoreAction, Equatable {
    static let wireName = "test/setCount"
    var value: Int
    var note: String?
}

struct Fetch: StoreAction, Equatable {
    static let wireName = "test/fetch"
    var fail = false
}

struct Fetched: StoreAction, Equatable {
    static let wireName = "test/fetched"
    var value: Int
}

struct CounterModel: ViewModel {
    let counter: String
}

struct NameModel: ViewModel {
    let name: String
}

/// Blocks renames to "", and turns `test/fetch` into an effect that dispatches `test/fetched`.
struct TestMiddleware: Middleware {
    func handle(_ action: any StoreAction, context: inout MiddlewareContext<TestState>) -> MiddlewareResult {
        switch action {
        case let rename as Rename where rename.name.isEmpty:
            return .block(reason: "name must not be empty")
        case let fetch as Fetch:
            let value = context.state.counter + 100
            context.run(id: "fetch") { effect in
                try await effect.services.clock.sleep(for: .milliseconds(1), tolerance: nil)
                if fetch.fail { throw TestFailure() }
                effect.dispatch(Fetched(value: value))
            }
            return .next(action)
        default:
            return .next(action)
        }
    }

    func registerActions(in registry: inout ActionRegistry) {
        registry.register(Fetch.self)
    }
}

struct TestFailure: Error {}

/// Counts how often a factory ran, to check projections are computed once per version.
final class Counter: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

func makeDefinition(
    factoryCalls: Counter = Counter(),
    configuration: StoreConfiguration = StoreConfiguration()
) -> StoreDefinition<TestState> {
    let counterReducer = AnyReducer<Int>(
        .on(Increment.self) { value, _ in value + 1 },
        .on(SetCount.self) { _, action in action.value },
        .on(Fetched.self) { _, action in action.value }
    )
    let nameReducer = AnyReducer<String>.on(Rename.self) { _, action in action.name }
    var services = Services()
    services.clock = ImmediateClock()  // The fetch effect's delay passes at once.
    var views = Projections<TestState>()
    views.add("counter", from: \.counter) { value in
        factoryCalls.increment()
        return CounterModel(counter: String(value))
    }
    views.add("name", from: \.name, NameModel.init)
    return StoreDefinition(
        initialState: TestState(),
        reducer: AnyReducer(counterReducer.lifted(\.counter), nameReducer.lifted(\.name)),
        middleware: [TestMiddleware()],
        projections: views,
        services: services,
        configuration: configuration
    )
}

/// Waits, with a deadline, until `condition` holds. The deadline only bounds a failing run: under a
/// sanitizer on two cores, the first seconds of the parallel suite can keep every cooperative thread busy.
func eventually(
    timeout: Duration = .seconds(60),
    _ condition: @Sendable () -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}

/// A lock-protected value that closures can share.
final class Locked<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { value.withLock { body(&$0) } }
    var current: Value { value.withLock { $0 } }
}

/// Parks a waiter on `views` after `version` that records what wakes it; fails if it cannot park.
func parkRecorder(on store: Store<TestState>, views: ViewSet, after version: UInt64 = 0) throws -> Locked<[StoreChange]>
{
    let woken = Locked<[StoreChange]>([])
    guard
        case .parked = store.waitForChange(
            after: version, views: views, handler: { c in woken.withLock { $0.append(c) } })
    else { throw TestFailure() }
    return woken
}

/// A scheduler the test owns: it keeps every job offered until the test runs them (``runAll()``), so a test sees
/// what was handed off and when it runs.
final class QueueScheduler: WorkScheduler {
    /// A job, boxed so that moving it through the lock does not wrap the closure again.
    private struct Job {
        let run: @Sendable () -> Void
    }

    private let jobs = Mutex<[Job]>([])

    func offer(_ job: @escaping @Sendable () -> Void) -> Bool {
        jobs.withLock { $0.append(Job(run: job)) }
        return true
    }

    /// How many jobs wait.
    var count: Int { jobs.withLock { $0.count } }

    /// Runs the jobs in the order they were offered, and those they offer, until none is left; returns how many ran.
    @discardableResult
    func runAll() -> Int {
        var ran = 0
        while let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            job.run()
            ran += 1
        }
        return ran
    }
}
