@_spi(ReMVVMServer) import ReMVVM
import Synchronization
import Testing

@Suite("Change stream")
struct ChangeStreamTests {
    @Test func waiterFilteredToCounterIsNotWokenByAnotherView() throws {
        let store = makeDefinition().makeStore()
        let counter = try store.viewSet(named: ["counter"]).get()
        let woken = try parkRecorder(on: store, views: counter)
        try store.dispatch(Rename(name: "Ada"))
        #expect(woken.withLock { $0 }.isEmpty)
        #expect(store.parkedWaiters == 1)
        try store.dispatch(Increment())
        #expect(woken.withLock { $0 } == [.changed(version: 2, views: counter)])
        #expect(store.parkedWaiters == 0)
    }

    @Test func waitersOfDifferentViewSelectionsWakeOnlyForTheirViewsAndSeeOnlyThose() throws {
        let store = makeDefinition().makeStore()
        let counter = try store.viewSet(named: ["counter"]).get()
        let name = try store.viewSet(named: ["name"]).get()
        let both = try store.viewSet(named: ["counter", "name"]).get()
        let counterWaiter = try parkRecorder(on: store, views: counter)
        let nameWaiter = try parkRecorder(on: store, views: name)
        let bothWaiter = try parkRecorder(on: store, views: both)
        guard case .parked(let cancelled) = store.waitForChange(after: 0, views: name, handler: { _ in }) else {
            throw TestFailure()
        }
        #expect(store.cancelWait(cancelled))
        #expect(store.parkedWaiters == 3)

        try store.dispatch(Increment())
        #expect(counterWaiter.withLock { $0 } == [.changed(version: 1, views: counter)])
        #expect(bothWaiter.withLock { $0 } == [.changed(version: 1, views: counter)], "only the view that changed")
        #expect(nameWaiter.withLock { $0 }.isEmpty)
        #expect(store.parkedWaiters == 1)

        try store.dispatch(Rename(name: "Ada"))
        #expect(nameWaiter.withLock { $0 } == [.changed(version: 2, views: name)])
        #expect(store.parkedWaiters == 0)
        // The emptied single group takes new waiters again.
        let later = try parkRecorder(on: store, views: counter, after: 2)
        try store.dispatch(Increment())
        #expect(later.withLock { $0 } == [.changed(version: 3, views: counter)])
    }

    @Test func aLoneWaiterJoinedByOthersAndLeftAloneAgainWakesOnceAndItsTokenStaysItsOwn() throws {
        let store = makeDefinition().makeStore()
        let counter = try store.viewSet(named: ["counter"]).get()
        let name = try store.viewSet(named: ["name"]).get()
        // Alone, then joined (it moves into the groups), then alone again when the other leaves.
        let lone = Locked<[StoreChange]>([])
        guard
            case .parked(let loneToken) = store.waitForChange(
                after: 0, views: counter, handler: { c in lone.withLock { $0.append(c) } })
        else {
            throw TestFailure()
        }
        guard case .parked(let otherToken) = store.waitForChange(after: 0, views: name, handler: { _ in }) else {
            throw TestFailure()
        }
        #expect(store.parkedWaiters == 2)
        #expect(store.cancelWait(otherToken))
        #expect(!store.cancelWait(otherToken))
        try store.dispatch(Rename(name: "Ada"))
        #expect(lone.current.isEmpty, "not a view it watches")
        try store.dispatch(Increment())
        #expect(lone.current == [.changed(version: 2, views: counter)])
        #expect(!store.cancelWait(loneToken), "woken already")
        // A new lone waiter is not removed by the old one's token, and a cancelled lone one is not woken.
        let next = try parkRecorder(on: store, views: counter, after: 2)
        #expect(!store.cancelWait(loneToken))
        #expect(store.parkedWaiters == 1)
        guard
            case .parked(let cancelled) = store.waitForChange(
                after: 2, views: name, handler: { _ in Issue.record("woken after cancelWait") })
        else {
            throw TestFailure()
        }
        #expect(store.cancelWait(cancelled))
        try store.dispatch(Increment())
        try store.dispatch(Rename(name: "Grace"))
        #expect(next.current == [.changed(version: 3, views: counter)])
        #expect(store.parkedWaiters == 0)
    }

    @Test func closeWakesALoneWaiterAndGroupedOnesAlike() throws {
        let lonely = makeDefinition().makeStore()
        let counter = try lonely.viewSet(named: ["counter"]).get()
        let lone = try parkRecorder(on: lonely, views: counter)
        lonely.close()
        #expect(lone.current == [.closed(version: 0)])
        let crowded = makeDefinition().makeStore()
        let first = try parkRecorder(on: crowded, views: counter)
        let second = try parkRecorder(on: crowded, views: counter)
        crowded.close()
        #expect(first.current == [.closed(version: 0)])
        #expect(second.current == [.closed(version: 0)])
    }

    @Test func waitAfterAnOlderVersionIsReadyAtOnce() throws {
        let store = makeDefinition().makeStore()
        try store.dispatch(Increment())
        let counter = try store.viewSet(named: ["counter"]).get()
        guard case .ready(let change) = store.waitForChange(after: 0, views: counter, handler: { _ in }) else {
            Issue.record("expected ready")
            return
        }
        #expect(change == .changed(version: 1, views: counter))
    }

    @Test func manyWaitersAreWokenByOneDispatchAndCancelledOnesAreNot() throws {
        let store = makeDefinition().makeStore()
        let counter = try store.viewSet(named: ["counter"]).get()
        let woken = Counter()
        var tokens: [WaiterToken] = []
        for _ in 0..<1_000 {
            if case .parked(let token) = store.waitForChange(
                after: 0, views: counter, handler: { _ in woken.increment() })
            {
                tokens.append(token)
            }
        }
        #expect(store.cancelWait(tokens[0]))
        try store.dispatch(Increment())
        #expect(!store.cancelWait(tokens[1]), "already taken by the dispatch")
        // With the default scheduler, even a fan-out this large is woken before the dispatch returns.
        #expect(woken.count == 999)
    }

    @Test func aSmallFanOutIsWokenBeforeTheDispatchReturns() throws {
        let store = makeDefinition().makeStore()
        let counter = try store.viewSet(named: ["counter"]).get()
        let woken = Counter()
        for _ in 0..<64 {
            _ = store.waitForChange(after: 0, views: counter, handler: { _ in woken.increment() })
        }
        try store.dispatch(Increment())
        #expect(woken.count == 64)
    }

    @Test func aLargeFanOutIsHandedToTheSchedulerAndDoesNotHoldUpTheDispatcher() throws {
        let scheduler = QueueScheduler()
        var configuration = StoreConfiguration()
        configuration.scheduler = scheduler
        let store = makeDefinition(configuration: configuration).makeStore()
        let counter = try store.viewSet(named: ["counter"]).get()
        let woken = Locked<[StoreChange]>([])
        for _ in 0..<65 {
            _ = store.waitForChange(after: 0, views: counter) { change in woken.withLock { $0.append(change) } }
        }
        try store.dispatch(Increment())
        // The dispatch returned without running a handler: the whole fan-out is one job of the scheduler's.
        #expect(woken.current.isEmpty)
        #expect(scheduler.count == 1)
        #expect(store.parkedWaiters == 0)
        #expect(scheduler.runAll() == 1)
        #expect(woken.current == Array(repeating: .changed(version: 1, views: counter), count: 65))
    }

    @Test func aSchedulerThatDeclinesLeavesTheFanOutToTheDispatcher() throws {
        let store = makeDefinition().makeStore()  // InlineScheduler, which declines every job.
        let counter = try store.viewSet(named: ["counter"]).get()
        let woken = Counter()
        for _ in 0..<65 {
            _ = store.waitForChange(after: 0, views: counter, handler: { _ in woken.increment() })
        }
        try store.dispatch(Increment())
        #expect(woken.count == 65)
    }

    @Test func aSmallFanOutIsNeverOfferedToTheScheduler() throws {
        let scheduler = QueueScheduler()
        var configuration = StoreConfiguration()
        configuration.scheduler = scheduler
        let store = makeDefinition(configuration: configuration).makeStore()
        let counter = try store.viewSet(named: ["counter"]).get()
        let woken = Counter()
        for _ in 0..<64 {
            _ = store.waitForChange(after: 0, views: counter, handler: { _ in woken.increment() })
        }
        try store.dispatch(Increment())
        #expect(woken.count == 64)
        #expect(scheduler.count == 0)
    }

    @Test func closeWakesWaitersWithClosed() throws {
        let store = makeDefinition().makeStore()
        let woken = Locked<StoreChange?>(nil)
        _ = store.waitForChange(after: 0, views: store.allViews) { change in woken.withLock { $0 = change } }
        store.close()
        #expect(woken.withLock { $0 } == .closed(version: 0))
    }

    @Test func asyncNextChangeResumesOnChange() async throws {
        let store = makeDefinition().makeStore()
        let counter = try store.viewSet(named: ["counter"]).get()
        async let change = store.nextChange(after: 0, views: counter)
        #expect(await eventually { store.parkedWaiters == 1 }, "the waiter never parked")
        try store.dispatch(Increment())
        #expect(try await change == .changed(version: 1, views: counter))
    }

    @Test func asyncNextChangeHonoursCancellation() async throws {
        let store = makeDefinition().makeStore()
        let task = Task { try await store.nextChange(after: 0, views: store.allViews) }
        #expect(await eventually { store.parkedWaiters == 1 }, "the waiter never parked")
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(store.parkedWaiters == 0)
    }

    @Test func observerIsToldOnlyWhenItsSubstateChanges() throws {
        let store = makeDefinition().makeStore()
        let seen = Locked<[(Int, UInt64)]>([])
        let token = store.observe(\.counter) { value, version in seen.withLock { $0.append((value, version)) } }
        try store.dispatch(Increment())
        try store.dispatch(Rename(name: "x"))
        try store.dispatch(Increment())
        #expect(seen.withLock { $0.map(\.0) } == [1, 2])
        #expect(seen.withLock { $0.map(\.1) } == [1, 3])
        store.removeObserver(token)
        try store.dispatch(Increment())
        #expect(seen.withLock { $0.count } == 2)
    }
}
