@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import Testing

@Suite("Initial views")
struct InitialViewsTests {
    @Test func freshStoresOfOneDefinitionShareTheirInitialViews() throws {
        let calls = Counter()
        let definition = makeDefinition(factoryCalls: calls)
        let first = definition.makeStore()
        let second = definition.makeStore()
        #expect(calls.count == 1, "the initial views are computed once per definition")
        let a = first.views(first.allViews).snapshots
        let b = second.views(second.allViews).snapshots
        #expect(a.count == 2)
        for (x, y) in zip(a, b) { #expect(x === y) }
        #expect(try a[0].json() == .object(["counter": .string("0")]))
    }

    @Test func aDispatchInOneFreshStoreLeavesTheOthersViewsAlone() throws {
        let definition = makeDefinition()
        let first = definition.makeStore()
        let second = definition.makeStore()
        try first.dispatch(SetCount(value: 7))
        #expect((first.viewModel(named: "counter") as? CounterModel)?.counter == "7")
        #expect((second.viewModel(named: "counter") as? CounterModel)?.counter == "0")
        #expect(second.version == 0)
        #expect(try second.views(second.allViews).snapshots[0].json() == .object(["counter": .string("0")]))
    }

    @Test func changingTheInitialStateGivesLaterStoresItsViews() throws {
        var definition = makeDefinition()
        _ = definition.makeStore()
        definition.initialState = TestState(counter: 5, name: "x")
        let store = definition.makeStore()
        #expect((store.viewModel(named: "counter") as? CounterModel)?.counter == "5")
        #expect((store.viewModel(named: "name") as? NameModel)?.name == "x")
    }

    @Test func changingTheProjectionsGivesLaterStoresTheirViews() {
        var definition = makeDefinition()
        _ = definition.makeStore()
        definition.projections.add("double", from: \.counter) { CounterModel(counter: String($0 * 2)) }
        let store = definition.makeStore()
        #expect(store.viewNames == ["counter", "name", "double"])
        #expect((store.viewModel(named: "double") as? CounterModel)?.counter == "0")
    }

    @Test func restoredStoresComputeTheirOwnViews() throws {
        let calls = Counter()
        let definition = makeDefinition(factoryCalls: calls)
        let fresh = definition.makeStore()
        let restored = definition.makeStore(state: TestState(counter: 3), version: 9)
        #expect(calls.count == 2)
        let snapshot = restored.views(restored.allViews).snapshots[0]
        #expect(snapshot.version == 9)
        #expect((snapshot.viewModel as? CounterModel)?.counter == "3")
        #expect(fresh.views(fresh.allViews).snapshots[0] !== snapshot)
    }
}
