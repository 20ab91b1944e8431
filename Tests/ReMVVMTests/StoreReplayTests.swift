@_spi(ReMVVMServer) import ReMVVM
import Testing

@Suite struct StoreReplayTests {
    @Test func replayAppliesTheReducersAndBumpsTheVersion() throws {
        let store = makeDefinition().makeStore()
        try store.replay(CommitRecord(version: 1, actions: [Increment(), SetCount(value: 41), Increment()]))
        #expect(store.versionedState.state == TestState(counter: 42))
        #expect(store.versionedState.version == 1)
        let model = try #require(store.viewModel(named: "counter") as? CounterModel)
        #expect(model.counter == "42")
    }

    @Test func replayRunsNoMiddlewareAndStartsNoEffect() throws {
        let store = makeDefinition().makeStore()
        // TestMiddleware would block the empty rename and start an effect for the fetch.
        try store.replay(CommitRecord(version: 1, actions: [Rename(name: ""), Fetch()]))
        #expect(store.state == TestState(counter: 0, name: ""))
        #expect(store.runningEffects == 0)
        try store.replay(CommitRecord(version: 2, actions: [Rename(name: "")]))
        #expect(store.version == 2)
    }

    @Test func replayDoesNotCallCommitListeners() throws {
        let store = makeDefinition().makeStore()
        let records = Locked<[UInt64]>([])
        store.onCommit { record in records.withLock { $0.append(record.version) } }
        try store.replay(CommitRecord(version: 1, actions: [Increment()]))
        try store.dispatch(Increment())
        #expect(records.current == [2])
    }

    @Test func theDispatchersMetadataReachesTheCommitListenersWithItsCommitOnly() throws {
        let store = makeDefinition().makeStore()
        let records = Locked<[CommitMetadata]>([])
        store.onCommit { record in records.withLock { $0.append(record.metadata) } }
        let keyed = CommitMetadata(idempotency: .init(key: "k1", digest: [1, 2, 3]))
        try store.dispatch([Increment()], metadata: keyed)
        try store.dispatch(Increment())
        #expect(records.current == [keyed, CommitMetadata()])
    }

    @Test(arguments: [0, 2, 5] as [UInt64])
    func replayRefusesAnythingButTheNextVersion(version: UInt64) throws {
        let store = makeDefinition().makeStore(state: TestState(counter: 7), version: 0)
        #expect(throws: StoreError.versionMismatch(current: 0)) {
            try store.replay(CommitRecord(version: version, actions: [Increment()]))
        }
        #expect(store.state.counter == 7)
    }

    @Test func replayRefusesAClosedStore() {
        let store = makeDefinition().makeStore()
        store.close()
        #expect(throws: StoreError.closed(at: 0)) {
            try store.replay(CommitRecord(version: 1, actions: [Increment()]))
        }
    }

    @Test func replayedVersionsAreInTheViewHistory() throws {
        let store = makeDefinition().makeStore(state: TestState(counter: 10), version: 10)
        for version in 11...13 as ClosedRange<UInt64> {
            try store.replay(CommitRecord(version: version, actions: [Increment()]))
        }
        let counter = try store.viewSet(named: ["counter"]).get()
        let views = store.views(counter, since: 11)
        let past = try #require(views.past)
        #expect((past[0].viewModel as? CounterModel)?.counter == "11")
        #expect(store.views(counter, since: 9).past == nil)
    }

    @Test func replayWakesChangeWaiters() throws {
        let store = makeDefinition().makeStore()
        let counter = try store.viewSet(named: ["counter"]).get()
        let woken = try parkRecorder(on: store, views: counter)
        try store.replay(CommitRecord(version: 1, actions: [Increment()]))
        #expect(woken.current.count == 1)
    }
}
