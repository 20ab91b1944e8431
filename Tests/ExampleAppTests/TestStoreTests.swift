import ExampleApp
import ReMVVM
import ReMVVMTesting
import Synchronization
import Testing

/// The harness app developers test with: each way a test can be wrong is an issue recorded where the test made
/// the call, saying how.
@Suite("TestStore")
struct TestStoreTests {
    func makeStore() -> TestStore<AppState> { makeTestStore(quotes: StubQuotes()) }

    @Test func aSendWhoseExpectedChangeIsWrongIsAnIssueAtTheCallShowingBothStates() async {
        let store = makeStore()
        let line = #line + 2
        let issues = await recordedIssues {
            store.send(CounterAction.Increase()) { $0.counter = 2 }
        }
        #expect(issues.count == 1)
        #expect(issues.first?.line == line, "recorded at the send")
        let message = issues.first?.message ?? ""
        #expect(message.hasPrefix("state after sending counter/increase differs:"))
        #expect(message.contains("counter: 2"), "the expected state")
        #expect(message.contains("counter: 1"), "the actual state")
        // The next step starts from what the store really holds, so one mistake fails one step.
        store.send(CounterAction.Increase()) { $0.counter = 2 }
    }

    @Test func aSendThatChangesNothingPassesOnlyWithoutAnExpectedChange() async {
        let store = makeStore()
        store.send(CounterAction.Set(value: 0))
        let issues = await recordedIssues { store.send(CounterAction.Set(value: 0)) { $0.counter = 5 } }
        #expect(issues.count == 1)
    }

    @Test func receivingAnotherActionThanTheEffectSentIsAnIssueNamingBoth() async {
        let store = makeStore()
        store.send(QuoteAction.Load(category: "broken")) { $0.quote.loading = true }
        let issues = await recordedIssues { await store.receive(QuoteAction.Loaded.self) }
        #expect(
            issues.map(\.message) == [
                "expected to receive \(QuoteAction.Loaded.wireName), received \(QuoteAction.Failed.wireName)"
            ])
        // The wrong action was taken, and the state it brought is the new starting point.
        store.assertNoPendingActions()
        store.send(CounterAction.Increase()) { $0.counter = 1 }
    }

    @Test func receivingWhenNoEffectRunsIsAnIssueAtOnce() async {
        let store = makeStore()
        store.send(CounterAction.Increase()) { $0.counter = 1 }
        // No wait for a timeout: nothing is running that could send it.
        let issues = await recordedIssues { await store.receive(QuoteAction.Loaded.self, timeout: .seconds(3600)) }
        #expect(
            issues.map(\.message) == ["expected to receive \(QuoteAction.Loaded.wireName), but no effect is running"])
    }

    @Test func receivingFromAnEffectThatNeverEndsGivesUpAtTheTimeout() async {
        let clock = TestClock()  // Never advanced: the quote's delay never ends.
        let store = makeTestStore(quotes: LocalQuoteService(clock: clock))
        store.send(QuoteAction.Load(category: "science")) { $0.quote.loading = true }
        let issues = await recordedIssues { await store.receive(QuoteAction.Loaded.self, timeout: .milliseconds(1)) }
        #expect(issues.map(\.message) == ["timed out after 0.001 seconds waiting to receive quote/loaded"])
    }

    @Test func anEffectsActionNobodyReceivedIsReportedWhenTheTestStoreGoesAway() async {
        let issues = await recordedIssues {
            let store = makeStore()
            store.send(QuoteAction.Load(category: "science")) { $0.quote.loading = true }
            await store.finish()  // The effect ended, its action unreceived.
        }
        #expect(issues.map(\.message) == ["unreceived actions: \(QuoteAction.Loaded.wireName)"])
        let atDeinit = await recordedIssues {
            let store = makeStore()
            let (commits, committed) = AsyncStream<Void>.makeStream()
            store.store.onCommit { _ in committed.yield() }
            store.send(QuoteAction.Load(category: "science")) { $0.quote.loading = true }
            for await _ in commits.dropFirst().prefix(1) {}  // The effect's commit.
        }
        #expect(atDeinit.map(\.message) == ["unreceived actions: \(QuoteAction.Loaded.wireName)"])
    }

    @Test func aDelayOnTheTestClockEndsWhenTheTestAdvancesIt() async {
        let clock = TestClock()
        let store = makeTestStore(quotes: LocalQuoteService(clock: clock))
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
    }

    @Test func viewsAreReadTypedAndAWrongNameOrTypeIsAnIssue() async {
        let store = makeStore()
        #expect(store.view("counter", as: CounterViewModel.self) == CounterViewModel(0))
        let issues = await recordedIssues {
            #expect(store.view("nothing", as: CounterViewModel.self) == nil)
            #expect(store.view("counter", as: QuoteViewModel.self) == nil)
        }
        #expect(issues.first?.message == "no view named 'nothing'")
        #expect(issues.last?.message.hasPrefix("view 'counter' is a CounterViewModel, not a ") == true)
    }
}

/// An issue a test store recorded: its message and the line it points at.
struct RecordedIssue: Sendable {
    let message: String
    let line: Int?
}

/// The issues `body` recorded, which are then expected rather than failures of the test.
func recordedIssues(_ body: () async -> Void) async -> [RecordedIssue] {
    let issues = Mutex<[RecordedIssue]>([])
    await withKnownIssue(isIntermittent: true) {
        await body()
    } matching: { issue in
        let message = issue.comments.map(\.rawValue).joined(separator: "\n")
        issues.withLock { $0.append(RecordedIssue(message: message, line: issue.sourceLocation?.line)) }
        return true
    }
    return issues.withLock { $0 }
}
