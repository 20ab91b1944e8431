import ReMVVM
import Synchronization

/// An exhaustive test harness for a store, after The Composable Architecture's `TestStore`.
///
/// ```swift
/// let store = TestStore(ExampleApp.definition(services: mocks))
/// try store.send(CounterAction.Increase()) { $0.counter = 1 }
/// try await store.receive(QuoteAction.Loaded.self) { $0.quote.text = "..." }
/// ```
/// Every ``send(_:assert:)`` must describe the state change exactly, and every action an
/// effect feeds back must be taken with ``receive(_:timeout:assert:)``; anything else throws a
/// ``TestStoreFailure`` that shows the difference.
public final class TestStore<State: Sendable & Equatable>: Sendable {
    /// The store under test.
    public let store: Store<State>
    private let expected: Mutex<State>
    private let log = CommitLog()

    /// A test store for `definition`, starting from `state` or its initial state.
    public init(_ definition: StoreDefinition<State>, state: State? = nil) {
        store = definition.makeStore(state: state)
        expected = Mutex(store.state)
        let log = self.log
        store.onCommit { record in log.records.withLock { $0.append(record) } }
    }

    /// Dispatches `action` and checks that the state changed exactly as `update` says.
    ///
    /// - Returns: What the store answered (applied or blocked, the new version).
    @discardableResult
    public func send(
        _ action: some StoreAction,
        assert update: (inout State) throws -> Void = { _ in }
    ) throws -> DispatchOutcome {
        let outcome = try store.dispatch(action)
        if outcome.committed {
            log.records.withLock { records in records.removeAll { $0.version == outcome.version } }
        }
        try check("after sending \(action.wireName)", update)
        return outcome
    }

    /// Waits until an effect's follow-up of type `type` is committed, then checks the state change.
    ///
    /// `timeout` only bounds an effect that never finishes, so it is generous: on a loaded machine, or under a
    /// sanitizer with the whole suite running in parallel, a prompt effect's task can wait seconds for a thread.
    @discardableResult
    public func receive<Action: StoreAction>(
        _ type: Action.Type,
        timeout: Duration = .seconds(30),
        assert update: (inout State) throws -> Void = { _ in }
    ) async throws -> Action {
        let deadline = ContinuousClock.now + timeout
        while true {
            let next = log.records.withLock { records -> CommitRecord? in
                records.isEmpty ? nil : records.removeFirst()
            }
            if let record = next {
                guard let action = record.actions.first as? Action else {
                    let names = record.actions.map { $0.wireName }.joined(separator: ", ")
                    throw TestStoreFailure("expected to receive \(Action.wireName), received \(names)")
                }
                try check("after receiving \(Action.wireName)", update)
                return action
            }
            guard ContinuousClock.now < deadline else {
                throw TestStoreFailure("timed out after \(timeout) waiting to receive \(Action.wireName)")
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Fails if effects committed actions that no ``receive(_:timeout:assert:)`` took.
    public func assertNoPendingActions() throws {
        let pending = log.records.withLock { $0.flatMap(\.actions).map { $0.wireName } }
        guard pending.isEmpty else {
            throw TestStoreFailure("unreceived actions: \(pending.joined(separator: ", "))")
        }
    }

    /// The named view model, typed.
    public func view<Model: ViewModel>(_ name: String, as type: Model.Type = Model.self) throws -> Model {
        guard let model = store.viewModel(named: name) else { throw TestStoreFailure("no view named '\(name)'") }
        guard let typed = model as? Model else {
            throw TestStoreFailure("view '\(name)' is a \(Swift.type(of: model)), not a \(Model.self)")
        }
        return typed
    }

    private func check(_ step: String, _ update: (inout State) throws -> Void) throws {
        var expectation = expected.withLock { $0 }
        try update(&expectation)
        let actual = store.state
        expected.withLock { $0 = actual }
        guard expectation == actual else {
            throw TestStoreFailure("state \(step) differs:\n  expected: \(expectation)\n    actual: \(actual)")
        }
    }
}

/// The commits a test store has not yet matched with `send` or `receive`.
private final class CommitLog: Sendable {
    let records = Mutex<[CommitRecord]>([])
}
