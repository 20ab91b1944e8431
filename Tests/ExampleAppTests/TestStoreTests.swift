import ExampleApp
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMTesting
import Testing

/// The harness app developers test with: each way a test can be wrong must fail, and say how.
@Suite("TestStore")
struct TestStoreTests {
    func makeStore() -> TestStore<AppState> { makeTestStore(quotes: StubQuotes()) }

    @Test func aSendWhoseExpectedChangeIsWrongFailsShowingBothStates() throws {
        let store = makeStore()
        let error = #expect(throws: TestStoreFailure.self) {
            try store.send(CounterAction.Increase()) { $0.counter = 2 }
        }
        let description = try #require(error?.description)
        #expect(description.hasPrefix("state after sending counter/increase differs:"))
        #expect(description.contains("counter: 2"), "the expected state")
        #expect(description.contains("counter: 1"), "the actual state")
        // The next step starts from what the store really holds, so one mistake fails one step.
        try store.send(CounterAction.Increase()) { $0.counter = 2 }
    }

    @Test func aSendThatChangesNothingPassesOnlyWithoutAnExpectedChange() throws {
        let store = makeStore()
        try store.send(CounterAction.Set(value: 0))
        #expect(throws: TestStoreFailure.self) { try store.send(CounterAction.Set(value: 0)) { $0.counter = 5 } }
    }

    @Test func receivingAnotherActionThanTheEffectSentFailsNamingBoth() async throws {
        let store = makeStore()
        try store.send(QuoteAction.Load(category: "broken")) { $0.quote.loading = true }
        let error = await #expect(throws: TestStoreFailure.self) {
            try await store.receive(QuoteAction.Loaded.self)
        }
        #expect(
            error?.description
                == "expected to receive \(QuoteAction.Loaded.wireName), received \(QuoteAction.Failed.wireName)")
    }

    @Test func anEffectsActionNobodyReceivedIsReported() async throws {
        let store = makeStore()
        try store.send(QuoteAction.Load(category: "science")) { $0.quote.loading = true }
        // Until the effect's follow-up lands nothing is pending; afterwards it is, until received.
        let settled = await eventually { (try? store.assertNoPendingActions()) == nil }
        #expect(settled, "the quote effect's follow-up never arrived")
        let error = #expect(throws: TestStoreFailure.self) { try store.assertNoPendingActions() }
        #expect(error?.description == "unreceived actions: \(QuoteAction.Loaded.wireName)")
        try await store.receive(QuoteAction.Loaded.self) {
            $0.quote.loading = false
            $0.quote.text = "A stub quote about science."
        }
        try store.assertNoPendingActions()
    }

    @Test func viewsAreReadTypedAndAWrongNameOrTypeIsAFailure() throws {
        let store = makeStore()
        #expect(try store.view("counter", as: CounterViewModel.self) == CounterViewModel(0))
        let unknown = #expect(throws: TestStoreFailure.self) { try store.view("nothing", as: CounterViewModel.self) }
        #expect(unknown?.description == "no view named 'nothing'")
        let mistyped = #expect(throws: TestStoreFailure.self) { try store.view("counter", as: QuoteViewModel.self) }
        #expect(mistyped?.description.hasPrefix("view 'counter' is a CounterViewModel, not a ") == true)
    }
}

/// Polls `condition` every 2 ms until it holds or a generous bound passes (a stuck effect fails the caller).
private func eventually(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}
