@_spi(ReMVVMServer) import ReMVVM
import Synchronization
import Testing

@Suite("Store dispatch")
struct StoreDispatchTests {
    @Test func dispatchAppliesReducerAndBumpsVersion() throws {
        let store = makeDefinition().makeStore()
        let outcome = try store.dispatch(Increment())
        #expect(outcome.version == 1)
        #expect(outcome.results == [.applied])
        #expect(store.state.counter == 1)
        #expect(store.version == 1)
    }

    @Test func concurrentDispatchesLoseNothingAndNumberVersionsWithoutGaps() async throws {
        let store = makeDefinition().makeStore()
        let versions = Locked<[UInt64]>([])
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    for _ in 0..<20 {
                        if let outcome = try? store.dispatch(Increment()) {
                            versions.withLock { $0.append(outcome.version) }
                        }
                    }
                }
            }
        }
        #expect(store.state.counter == 1_000)
        #expect(store.version == 1_000)
        #expect(versions.withLock { $0.sorted() } == Array(1...1_000))
    }

    @Test func blockedActionChangesNothing() throws {
        let store = makeDefinition().makeStore()
        try store.dispatch(Rename(name: "Ada"))
        let outcome = try store.dispatch(Rename(name: ""))
        #expect(outcome.results == [.blocked(reason: "name must not be empty")])
        #expect(outcome.version == 1)
        #expect(!outcome.committed)
        #expect(store.state.name == "Ada")
    }

    @Test func batchIsReducedInOrderAndCommittedAsOneVersion() throws {
        let store = makeDefinition().makeStore()
        let batch: [any StoreAction] = [Increment(), Rename(name: ""), SetCount(value: 7), Increment()]
        let outcome = try store.dispatch(batch, views: store.allViews)
        #expect(outcome.version == 1)
        #expect(outcome.results == [.applied, .blocked(reason: "name must not be empty"), .applied, .applied])
        #expect(store.state.counter == 8)
        #expect(outcome.views.map(\.name) == ["counter", "name"])
        #expect((outcome.views[0].viewModel as? CounterModel)?.counter == "8")
    }

    @Test func expectedVersionMismatchAppliesNothing() throws {
        let store = makeDefinition().makeStore()
        try store.dispatch(Increment())
        #expect(throws: StoreError.versionMismatch(current: 1)) {
            try store.dispatch([Increment()], expectedVersion: 0)
        }
        #expect(store.state.counter == 1)
        #expect(try store.dispatch([Increment()], expectedVersion: 1).version == 2)
    }

    @Test func closedStoreRefusesDispatch() throws {
        let store = makeDefinition().makeStore()
        store.close()
        #expect(throws: StoreError.closed(at: 0)) { try store.dispatch(Increment()) }
    }

    @Test func unhandledButRegisteredActionStillCommits() throws {
        let store = makeDefinition().makeStore()
        let outcome = try store.dispatch(Fetch())
        #expect(outcome.committed)
        #expect(store.state == TestState())
        store.close()
    }
}
