import ReMVVM
import Synchronization

/// What a test store has not matched yet: the commits it did not send, and a signal for each commit and each
/// effect's end, which ``TestStore/receive(_:timeout:assert:sourceLocation:)`` waits on.
final class TestStoreInbox: Sendable {
    private struct State {
        var records: [CommitRecord] = []
        /// Counts commits and effect ends: a waiter sleeps only while it has not moved.
        var generation: UInt64 = 0
        var waiter: (id: UInt64, continuation: CheckedContinuation<Void, Never>)?
        var nextWaiterID: UInt64 = 0
        /// A waiter cancelled before it was registered.
        var cancelledWaiter: UInt64?
    }

    private let state = Mutex(State())

    /// How many commits and effect ends so far.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Records a commit, or only signals (an effect ended) when `record` is nil.
    func post(_ record: CommitRecord?) {
        let waiter = state.withLock { state in
            if let record { state.records.append(record) }
            state.generation += 1
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.continuation.resume()
    }

    /// Forgets the commit of `version` (the test sent it).
    func remove(version: UInt64) {
        state.withLock { $0.records.removeAll { $0.version == version } }
    }

    /// The oldest commit not yet matched.
    func takeFirst() -> CommitRecord? {
        state.withLock { $0.records.isEmpty ? nil : $0.records.removeFirst() }
    }

    /// The actions of every commit not yet matched.
    var pending: [any StoreAction] { state.withLock { $0.records.flatMap(\.actions) } }

    /// Returns once the generation differs from `generation` (true), or at `deadline` (false), whichever is first.
    func wait(after generation: UInt64, until deadline: ContinuousClock.Instant) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.signal(after: generation) }
            group.addTask {
                // A bound for an effect that never ends, spent only by a failing test.
                try? await Task.sleep(until: deadline, clock: .continuous)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Suspends until the generation moves past `generation`; true unless cancelled first.
    private func signal(after generation: UInt64) async -> Bool {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.generation != generation || state.cancelledWaiter == id { return true }
                    state.waiter = (id, continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                guard let waiter = state.waiter, waiter.id == id else {
                    state.cancelledWaiter = id
                    return (id: UInt64, continuation: CheckedContinuation<Void, Never>)?.none
                }
                state.waiter = nil
                return waiter
            }
            waiter?.continuation.resume()
        }
        return !Task.isCancelled
    }
}
