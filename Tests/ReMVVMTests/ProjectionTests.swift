@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import Testing

@Suite("Projections")
struct ProjectionTests {
    @Test func projectionsAreComputedOncePerVersionHoweverManyReadersAsk() throws {
        let calls = Counter()
        let store = makeDefinition(factoryCalls: calls).makeStore()
        #expect(calls.count == 1)
        try store.dispatch(Increment())
        #expect(calls.count == 2)
        for _ in 0..<100 {
            _ = store.views(store.allViews)
            _ = store.viewModel(named: "counter")
        }
        #expect(calls.count == 2)
        try store.dispatch(Rename(name: "x"))
        #expect(calls.count == 2, "a change to another substate does not recompute the counter view")
    }

    @Test func snapshotEncodesItsJSONOnceAndSharesIt() throws {
        let store = makeDefinition().makeStore()
        try store.dispatch(SetCount(value: 42))
        let first = store.views(store.allViews).snapshots[0]
        let second = store.views(store.allViews).snapshots[0]
        #expect(first === second)
        #expect(try first.json() == .object(["counter": .string("42")]))
    }

    @Test func unchangedViewModelDoesNotMakeANewSnapshot() throws {
        let store = makeDefinition().makeStore()
        try store.dispatch(SetCount(value: 0, note: "same value"))
        #expect(store.changedViews(after: 0, among: store.allViews).isEmpty)
    }

    @Test func pastSnapshotsAreKeptUpToTheHistoryLimit() throws {
        var configuration = StoreConfiguration()
        configuration.historyLimit = 3
        let store = makeDefinition(configuration: configuration).makeStore()
        for _ in 0..<5 { try store.dispatch(Increment()) }
        let counter = try store.viewSet(named: ["counter"]).get()
        let recent = store.views(counter, since: 3)
        #expect((recent.past?.first?.viewModel as? CounterModel)?.counter == "3")
        #expect(store.views(counter, since: 1).past == nil, "version 1 is older than the kept history")
        let name = try store.viewSet(named: ["name"]).get()
        #expect(store.views(name, since: 0).past?.count == 1, "an unchanged view keeps its only value")
    }

    @Test(arguments: [1, 2, 4])
    func historyKeepsTheNewestValuesUpToTheLimitAsItWraps(limit: Int) throws {
        var configuration = StoreConfiguration()
        configuration.historyLimit = limit
        let store = makeDefinition(configuration: configuration).makeStore()
        let counter = try store.viewSet(named: ["counter"]).get()
        for _ in 0..<10 { try store.dispatch(Increment()) }
        for since in UInt64(0)...10 {
            let past = store.views(counter, since: since).past
            if since > 10 - UInt64(limit) {
                #expect((past?.first?.viewModel as? CounterModel)?.counter == String(since), "since \(since)")
            } else {
                #expect(past == nil, "version \(since) is older than the \(limit) kept values")
            }
        }
    }

    /// One view read alone gives what a set of that one view gives, through every store form (the default of
    /// `ProjectedStore` included), before, within and after the kept history.
    @Test(arguments: [1, 3])
    func oneViewReadsAsASetOfItDoes(limit: Int) throws {
        var configuration = StoreConfiguration()
        configuration.historyLimit = limit
        let store = makeDefinition(configuration: configuration).makeStore()
        for _ in 0..<5 { try store.dispatch(Increment()) }
        let forms: [any ProjectedStore] = [store, AnyProjectedStore(store), ListOnlyStore(store)]
        for form in forms {
            for index in store.viewNames.indices {
                for since in UInt64(0)...6 {
                    let one = form.view(index, since: since)
                    let set = form.views(ViewSet(indices: [index]), since: since)
                    let label = "\(type(of: form)): view \(index) since \(since)"
                    #expect(one.version == set.version, "\(label)")
                    #expect(one.current === set.current.first, "\(label)")
                    #expect(one.past === set.past?.first, "\(label)")
                }
            }
        }
    }

    @Test func aViewSetNamesItsOnlyView() {
        #expect(ViewSet.none.only == nil)
        #expect(ViewSet(indices: [0]).only == 0)
        #expect(ViewSet(indices: [63]).only == 63)
        #expect(ViewSet(indices: [2, 5]).only == nil)
        #expect(ViewSet.all(64).only == nil)
    }

    @Test func anUnchangedViewKeepsItsInitialValueWithoutHistory() throws {
        let store = makeDefinition().makeStore()
        for _ in 0..<3 { try store.dispatch(Increment()) }
        let name = try store.viewSet(named: ["name"]).get()
        #expect(store.views(name, since: 0).past?.first?.version == 0)
    }

    @Test(arguments: [3, 16, 17, 40])
    func viewsAreFoundByNameHoweverManyThereAre(count: Int) {
        // Up to 16 names are compared, beyond that hashed: both ways find every view and only those.
        var views = Projections<TestState>()
        for index in 0..<count {
            views.add("view\(index)", from: \.counter) { CounterModel(counter: String($0 + index)) }
        }
        views.add("view0", from: \.name) { NameModel(name: $0) }  // Replaced in place: still index 0.
        #expect(views.count == count)
        for index in 0..<count { #expect(views.index(of: "view\(index)") == index) }
        #expect(views.index(of: "view\(count)") == nil)
        #expect(views.index(of: "View0") == nil)
        #expect(views.viewSet(named: ["view\(count - 1)", "view0"]).map(\.count) == .success(2))
        #expect(views.viewSet(named: ["view0", "nope"]) == .failure(UnknownViewError(name: "nope")))
        // One name alone finds what a list of that one name finds, compared or hashed.
        for name in (0...count).map({ "view\($0)" }) + ["View0", ""] {
            #expect(views.viewSet(named: name) == views.viewSet(named: [name]), "\(name) of \(count)")
        }
    }

    @Test func unknownViewNameIsReported() {
        let store = makeDefinition().makeStore()
        #expect(store.viewSet(named: ["counter", "nope"]) == .failure(UnknownViewError(name: "nope")))
        #expect(store.viewSet(named: "nope") == .failure(UnknownViewError(name: "nope")))
    }

    /// A store reached as `any ProjectedStore`, wrapped or not, finds one view by its name as a list of it does.
    @Test func oneViewIsFoundByNameThroughEveryStoreForm() {
        let store = makeDefinition().makeStore()
        let forms: [any ProjectedStore] = [store, AnyProjectedStore(store)]
        for form in forms {
            for name in store.viewNames + ["nope", ""] {
                #expect(form.viewSet(named: name) == form.viewSet(named: [name]), "\(type(of: form)): \(name)")
            }
        }
    }
}

/// A projected store that implements only the list forms, so `ProjectedStore`'s defaults answer the rest.
private final class ListOnlyStore: ProjectedStore {
    let base: Store<TestState>

    init(_ base: Store<TestState>) { self.base = base }

    var version: UInt64 { base.version }
    var viewNames: [String] { base.viewNames }
    var allViews: ViewSet { base.allViews }
    var parkedWaiters: Int { base.parkedWaiters }
    var runningEffects: Int { base.runningEffects }

    func viewSet(named names: [String]) -> Result<ViewSet, UnknownViewError> { base.viewSet(named: names) }

    func dispatch(
        _ actions: [any StoreAction], views: ViewSet, expectedVersion: UInt64?, metadata: CommitMetadata
    ) throws(StoreError) -> DispatchOutcome {
        try base.dispatch(actions, views: views, expectedVersion: expectedVersion, metadata: metadata)
    }

    func views(_ views: ViewSet) -> (version: UInt64, snapshots: [ViewSnapshot]) { base.views(views) }
    func views(_ views: ViewSet, since: UInt64?) -> ViewsSince { base.views(views, since: since) }

    func waitForChange(after version: UInt64, views: ViewSet, handler: @escaping @Sendable (StoreChange) -> Void)
        -> WaitRegistration
    {
        base.waitForChange(after: version, views: views, handler: handler)
    }

    func cancelWait(_ token: WaiterToken) -> Bool { base.cancelWait(token) }
    func close() { base.close() }
}
