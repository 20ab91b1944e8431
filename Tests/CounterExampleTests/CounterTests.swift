import ReMVVMTesting
import Testing

@testable import CounterExample

@Test func counterCountsAndRefusesNegatives() throws {
    let store = TestStore(CounterApp.definition)
    try store.send(Increase()) { $0.count = 1 }
    try store.send(SetCount(count: -1))  // Blocked by NoNegatives: nothing changes.
    #expect(try store.view("counter", as: CounterView.self) == CounterView(count: 1))
}
