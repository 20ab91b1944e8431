import ExampleApp
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMTesting
import Synchronization
import Testing

/// The harness app developers test with: each way a test can be wrong is reported where the test made the call,
/// saying how. Its failures go to a list here, which each test checks (in app developers' tests they are Swift
/// Testing issues).
@Suite("TestStore")
struct TestStoreTests {
    let failures = Failures()

    func makeStore(sourceLocation: SourceLocation = #_sourceLocation) -> TestStore<AppState> {
        makeTestStore(quotes: StubQuotes(), failures: failures, sourceLocation: sourceLocation)
    }

    @Test func aSendWhoseExpectedChangeIsWrongIsReportedAtTheCallShowingBothStates() {
        let store = makeStore()
        store.send(CounterAction.Increase()) { $0.counter = 2 }
        let line = #line - 1
        let reported = failures.take()
        #expect(reported.count == 1)
        #expect(reported.first?.line == line, "reported at the send")
        let message = reported.first?.message ?? ""
        #expect(message.hasPrefix("state after sending counter/increase differs:"))
        #expect(message.contains("counter: 2"), "the expected state")
        #expect(message.contains("counter: 1"), "the actual state")
        // The next step starts from what the store really holds, so one mistake fails one step.
        store.send(CounterAction.Increase()) { $0.counter = 2 }
        #expect(failures.take().isEmpty)
    }

    @Test func aSendThatChangesNothingPassesOnlyWithoutAnExpectedChange() {
        let store = makeStore()
        store.send(CounterAction.Set(value: 0))
        #expect(failures.take().isEmpty)
        store.send(CounterAction.Set(value: 0)) { $0.counter = 5 }
        #expect(failures.take().count == 1)
    }

    @Test func receivingAnotherActionThanTheEffectSentIsReportedNamingBoth() async {
        let store = makeStore()
        store.send(QuoteAction.Load(category: "broken")) { $0.quote.loading = true }
        await store.receive(QuoteAction.Loaded.self)
        #expect(
            failures.take().map(\.message) == [
                "expected to receive \(QuoteAction.Loaded.wireName), received \(QuoteAction.Failed.wireName)"
            ])
        // The wrong action was taken, and the state it brought is the new starting point.
        store.assertNoPendingActions()
        store.send(CounterAction.Increase()) { $0.counter = 1 }
        #expect(failures.take().isEmpty)
    }

    @Test func receivingWhenNoEffectRunsIsReportedAtOnce() async {
        let store = makeStore()
        store.send(CounterAction.Increase()) { $0.counter = 1 }
        // No wait for the timeout: nothing is running that could send it.
        await store.receive(QuoteAction.Loaded.self, timeout: .seconds(3600))
        #expect(
            failures.take().map(\.message) == [
                "expected to receive \(QuoteAction.Loaded.wireName), but no effect is running"
            ])
    }

    /// What a test clock's sleep that was never advanced past looks like in a report.
    static let sleeping =
        "the TestClock has 1 sleep it was not advanced past (the next ends at 0.3 seconds, the clock is at 0.0 "
        + "seconds): `await clock.waitForSleepers()`, then `clock.advance(by:)`"

    @Test func receivingFromAnEffectThatNeverEndsGivesUpAtTheTimeoutSayingWhatSleeps() async {
        let clock = TestClock()  // Never advanced: the quote's delay never ends.
        let store = makeTestStore(quotes: LocalQuoteService(clock: clock), clock: clock, failures: failures)
        store.allowsRunningEffectsAtEnd = true
        store.send(QuoteAction.Load(category: "science")) { $0.quote.loading = true }
        await clock.waitForSleepers()
        await store.receive(QuoteAction.Loaded.self, timeout: .milliseconds(1))
        #expect(
            failures.take().map(\.message) == [
                "timed out after 0.001 seconds waiting to receive quote/loaded; \(Self.sleeping)"
            ])
    }

    @Test func aTestStoreThatGoesAwayWithAnEffectStillRunningFailsTheTest() async {
        let clock = TestClock()  // Never advanced.
        let quotes = LocalQuoteService(clock: clock)
        var store: TestStore<AppState>? = makeTestStore(quotes: quotes, clock: clock, failures: failures)
        let line = #line - 1
        store?.send(QuoteAction.Load(category: "science")) { $0.quote.loading = true }
        await clock.waitForSleepers()
        store = nil
        let reported = failures.take()
        #expect(
            reported.map(\.message) == [
                "1 effect is still running at the end of the test; \(Self.sleeping); receive what they send until "
                    + "they end, or set allowsRunningEffectsAtEnd to cancel them"
            ])
        #expect(reported.first?.line == line, "reported where the test store was made")
    }

    @Test func aTestStoreThatAllowsRunningEffectsAtTheEndCancelsThemSilently() async {
        let clock = TestClock()  // Never advanced.
        var store: TestStore<AppState>? = makeTestStore(
            quotes: LocalQuoteService(clock: clock), clock: clock, failures: failures)
        store?.allowsRunningEffectsAtEnd = true
        store?.send(QuoteAction.Load(category: "science")) { $0.quote.loading = true }
        await clock.waitForSleepers()
        let running = store?.store
        store = nil
        #expect(running?.isClosed == true, "its effects were cancelled with the store")
        #expect(failures.take().isEmpty)
    }

    @Test func finishReportsAnEffectsActionNobodyReceived() async {
        let store = makeStore()
        store.send(QuoteAction.Load(category: "science")) { $0.quote.loading = true }
        await store.finish()
        #expect(failures.take().map(\.message) == ["unreceived actions: \(QuoteAction.Loaded.wireName)"])
    }

    @Test func aTestStoreThatGoesAwayReportsUnreceivedActionsWhereItWasMade() async {
        var store: TestStore<AppState>? = makeStore()
        let line = #line - 1
        let (commits, committed) = AsyncStream<Void>.makeStream()
        store?.store.onCommit { _ in committed.yield() }
        store?.send(QuoteAction.Load(category: "science")) { $0.quote.loading = true }
        var commitsSeen = commits.makeAsyncIterator()
        _ = await commitsSeen.next()  // The send's commit,
        _ = await commitsSeen.next()  // then the effect's.
        store = nil
        let reported = failures.take()
        #expect(reported.map(\.message) == ["unreceived actions: \(QuoteAction.Loaded.wireName)"])
        #expect(reported.first?.line == line)
    }

    @Test func aDelayOnTheTestClockEndsWhenTheTestAdvancesIt() async {
        let clock = TestClock()
        let store = makeTestStore(quotes: LocalQuoteService(clock: clock), clock: clock, failures: failures)
        store.send(QuoteAction.Load(category: "humor")) { $0.quote.loading = true }
        await clock.waitForSleepers()
        clock.advance(by: .milliseconds(299))
        #expect(clock.sleepers == 1, "the 300 ms delay has not ended")
        clock.advance(by: .milliseconds(1))
        #expect(clock.sleepers == 0)
        let text = try? await LocalQuoteService(delay: .zero, clock: ImmediateClock()).quote(category: "humor")
        let loaded = await store.receive(QuoteAction.Loaded.self) {
            $0.quote.loading = false
            $0.quote.text = text
        }
        #expect(loaded != nil)
        await store.finish()
        #expect(failures.take().isEmpty)
    }

    @Test func viewsAreReadTypedAndAWrongNameOrTypeIsReported() {
        let store = makeStore()
        #expect(store.view("counter", as: CounterViewModel.self) == CounterViewModel(0))
        #expect(store.view("nothing", as: CounterViewModel.self) == nil)
        #expect(store.view("counter", as: QuoteViewModel.self) == nil)
        let reported = failures.take().map(\.message)
        #expect(reported.first == "no view named 'nothing'")
        #expect(reported.last?.hasPrefix("view 'counter' is a CounterViewModel, not a ") == true)
    }
}

/// What a test store reported: each message and the line it points at.
final class Failures: Sendable {
    struct Failure: Sendable {
        let message: String
        let line: Int
    }

    private let list = Mutex<[Failure]>([])

    func add(_ message: String, at location: SourceLocation) {
        list.withLock { $0.append(Failure(message: message, line: location.line)) }
    }

    /// Everything reported since the last call.
    func take() -> [Failure] {
        list.withLock { list in
            defer { list.removeAll() }
            return list
        }
    }
}
