import CounterShared
import ReMVVMTesting
import Testing

@testable import CounterExample

@Test func counterCountsAndRefusesNegatives() {
    let store = TestStore(CounterApp.definition)
    store.send(Increase()) { $0.count = 1 }
    store.send(SetCount(count: -1))  // Blocked by NoNegatives: nothing changes.
    #expect(store.view("counter", as: CounterView.self) == CounterView(count: 1))
}
