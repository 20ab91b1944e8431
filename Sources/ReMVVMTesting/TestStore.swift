import Foundation
@_spi(ReMVVMServer) import ReMVVM
import Synchronization
import Testing

/// An exhaustive test harness for a store, after The Composable Architecture's `TestStore`.
///
/// ```swift
/// let store = TestStore(ExampleApp.definition(services: mocks))
/// store.send(CounterAction.Increase()) { $0.counter = 1 }
/// await store.receive(QuoteAction.Loaded.self) { $0.quote.text = "..." }
/// ```
/// Every ``send(_:assert:sourceLocation:)`` must describe the state change exactly, and every action an effect
/// feeds back must be taken with ``receive(_:timeout:assert:sourceLocation:)``. Anything else is a Swift Testing
/// issue recorded where the test made the call, showing the difference; the test goes on from the state the
/// store really holds, so one mistake fails one step. When the test store goes away, actions nobody received are
/// reported where it was made, and so are effects still running, which are then cancelled: a test says what
/// each effect does until it ends (or sets ``allowsRunningEffectsAtEnd``). ``finish(timeout:sourceLocation:)``
/// waits for running effects to end and reports those that do not.
public final class TestStore<State: Sendable & Equatable>: Sendable {
    /// The store under test.
    public let store: Store<State>
    private let expected: Mutex<State>
    private let inbox = TestStoreInbox()
    private let createdAt: SourceLocation
    /// The definition's clock, when it is a test clock: what a waiting effect may be sleeping on.
    private let clock: TestClock?
    private let allowsRunning = Atomic<Bool>(false)
    /// Where failures go: Swift Testing's issues, or the harness's own tests' list.
    private let report: @Sendable (String, SourceLocation) -> Void

    /// A test store for `definition`, starting from `state` or its initial state.
    ///
    /// Effects sleep on the definition's ``Services/clock``: give it a ``TestClock`` to decide when their delays
    /// end, or an ``ImmediateClock`` to skip them.
    public convenience init(
        _ definition: StoreDefinition<State>, state: State? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        self.init(definition, state: state, sourceLocation: sourceLocation) { message, location in
            Issue.record(Comment(rawValue: message), sourceLocation: location)
        }
    }

    /// A test store whose failures go to `report` instead of Swift Testing: for the harness's own tests, which
    /// check each failure without recording it as a (known) issue of their own.
    package init(
        _ definition: StoreDefinition<State>,
        state: State? = nil,
        sourceLocation: SourceLocation = #_sourceLocation,
        report: @escaping @Sendable (String, SourceLocation) -> Void
    ) {
        var definition = definition
        // A hub of its own unless the test shares one: what the store's middleware and effects publish stays here.
        if definition.topics == nil { definition.topics = TopicHub() }
        store = definition.makeStore(state: state)
        clock = definition.services.clock as? TestClock
        expected = Mutex(store.state)
        createdAt = sourceLocation
        self.report = report
        let inbox = self.inbox
        store.onCommit { record in inbox.post(record) }
        store.onEffectFinished { inbox.post(nil) }
    }

    /// Whether effects may still run when the test store goes away, to be cancelled without a word; false (the
    /// default) reports them as a test failure, as The Composable Architecture does.
    ///
    /// Set it for a test about something else whose effects are long-lived (a timer, a subscription).
    public var allowsRunningEffectsAtEnd: Bool {
        get { allowsRunning.load(ordering: .relaxed) }
        set { allowsRunning.store(newValue, ordering: .relaxed) }
    }

    deinit {
        let pending = inbox.pending.map { $0.wireName }
        if !pending.isEmpty {
            report("unreceived actions: \(pending.joined(separator: ", "))", createdAt)
        }
        if !allowsRunningEffectsAtEnd, !effectsEndSoon() {
            let running = store.runningEffects
            let count = running == 1 ? "1 effect is" : "\(running) effects are"
            report(
                "\(count) still running at the end of the test\(clock?.sleepersNote.map { "; \($0)" } ?? ""); "
                    + "receive what they send until they end, or set allowsRunningEffectsAtEnd to cancel them",
                createdAt)
        }
        store.close()
    }

    /// Whether no effect runs, or every one ends within a moment: one that sent its last action is still
    /// running until its task returns, which the test did not wait for. Not waited for when the test clock
    /// holds as many sleeps as effects run (they will not end), nor for more than a second (they hang).
    private func effectsEndSoon() -> Bool {
        let deadline = ContinuousClock.now + .seconds(1)
        while store.runningEffects > 0 {
            guard store.runningEffects > (clock?.sleepers ?? 0), ContinuousClock.now < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return true
    }

    /// Dispatches `action` and checks that the state changed exactly as `update` says.
    ///
    /// - Returns: What the store answered (applied or blocked, the new version); nil, with an issue, when it
    ///   refused the action.
    @discardableResult
    public func send<Action: StoreAction>(
        _ action: Action,
        assert update: (inout State) throws -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> DispatchOutcome? {
        let outcome: DispatchOutcome
        do {
            outcome = try store.dispatch(action)
        } catch {
            report("the store refused \(action.wireName): \(error)", sourceLocation)
            return nil
        }
        if outcome.committed { inbox.remove(version: outcome.version) }
        check("after sending \(action.wireName)", update, sourceLocation)
        return outcome
    }

    /// Waits until an effect's follow-up of type `type` is committed, then checks the state change.
    ///
    /// It waits on the store's commits and effects, and fails at once when no effect is running that could still
    /// send the action. `timeout` bounds an effect that never ends, such as one sleeping on a ``TestClock`` the
    /// test did not advance (the failure then says so). The default is 15 s: a prompt effect's task waits for a
    /// thread of the concurrency pool, which other tests of a parallel run can hold for over ten seconds (a
    /// suite's synchronous setup, such as creating a database, runs on it).
    /// - Returns: The action received; nil, with an issue, when another came or none could.
    @discardableResult
    public func receive<Action: StoreAction>(
        _ type: Action.Type,
        timeout: Duration = .seconds(15),
        assert update: (inout State) throws -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Action? {
        let deadline = ContinuousClock.now + timeout
        while true {
            // In this order: an effect that ended before `running` was read has committed what it sends.
            let generation = inbox.generation
            let running = store.runningEffects
            if let record = inbox.takeFirst() {
                guard let action = record.actions.first as? Action else {
                    let names = record.actions.map { $0.wireName }.joined(separator: ", ")
                    report("expected to receive \(Action.wireName), received \(names)", sourceLocation)
                    expected.withLock { $0 = store.state }
                    return nil
                }
                check("after receiving \(Action.wireName)", update, sourceLocation)
                return action
            }
            guard running > 0 else {
                report("expected to receive \(Action.wireName), but no effect is running", sourceLocation)
                return nil
            }
            guard await inbox.wait(after: generation, until: deadline) else {
                let note = clock?.sleepersNote.map { "; \($0)" } ?? ""
                report("timed out after \(timeout) waiting to receive \(Action.wireName)\(note)", sourceLocation)
                return nil
            }
        }
    }

    /// Waits until every effect has ended (at most `timeout`), then reports what they sent that nobody received.
    public func finish(timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation) async {
        let deadline = ContinuousClock.now + timeout
        while true {
            let generation = inbox.generation
            let running = store.runningEffects
            if running == 0 { break }
            guard await inbox.wait(after: generation, until: deadline) else {
                report("\(running) effects still running after \(timeout)", sourceLocation)
                break
            }
        }
        assertNoPendingActions(sourceLocation: sourceLocation)
    }

    /// Reports the actions effects committed that no ``receive(_:timeout:assert:sourceLocation:)`` took, and
    /// forgets them.
    public func assertNoPendingActions(sourceLocation: SourceLocation = #_sourceLocation) {
        var names: [String] = []
        while let record = inbox.takeFirst() { names += record.actions.map { $0.wireName } }
        if !names.isEmpty {
            report("unreceived actions: \(names.joined(separator: ", "))", sourceLocation)
            expected.withLock { $0 = store.state }
        }
    }

    /// The named view model, typed; nil, with an issue, when there is no such view or it has another type.
    public func view<Model: ViewModel>(
        _ name: String,
        as type: Model.Type = Model.self,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Model? {
        guard let model = store.viewModel(named: name) else {
            report("no view named '\(name)'", sourceLocation)
            return nil
        }
        guard let typed = model as? Model else {
            report("view '\(name)' is a \(Swift.type(of: model)), not a \(Model.self)", sourceLocation)
            return nil
        }
        return typed
    }

    private func check(_ step: String, _ update: (inout State) throws -> Void, _ sourceLocation: SourceLocation) {
        var expectation = expected.withLock { $0 }
        let actual = store.state
        expected.withLock { $0 = actual }
        do {
            try update(&expectation)
        } catch {
            report("the expected change \(step) threw: \(error)", sourceLocation)
            return
        }
        if expectation != actual {
            report("state \(step) differs:\n  expected: \(expectation)\n    actual: \(actual)", sourceLocation)
        }
    }
}
