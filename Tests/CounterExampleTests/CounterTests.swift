import CounterShared
import ReMVVM
import ReMVVMTesting
import Testing

@testable import CounterExample

@Test func counterCountsAndRefusesNegatives() {
    let store = TestStore(CounterApp.definition)
    store.send(Increase()) { $0.count = 1 }
    store.send(SetCount(count: -1))  // Blocked by NoNegatives: nothing changes.
    #expect(store.view("counter", as: CounterView.self) == CounterView(count: 1))
}

@Test func increaseLaterIncreasesOnceTheClockGetsThere() async {
    let clock = TestClock()
    var definition = CounterApp.definition
    definition.services.clock = clock
    let store = TestStore(definition)
    store.send(IncreaseLater(seconds: 2))  // Starts the effect; nothing changes yet.
    await clock.waitForSleepers()  // The effect sleeps: an advance now ends its sleep.
    clock.advance(by: .seconds(2))
    await store.receive(Increase.self) { $0.count = 1 }
}
