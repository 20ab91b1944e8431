import ExampleApp
import Foundation
import Logging
@_spi(ReMVVMServer) import ReMVVM
import Synchronization
import Testing

@testable import ReMVVMPersistence

@Suite final class GroupCommitWriterTests {
    private let opened = Opened()

    deinit {
        opened.stopAll()
    }

    func sessions(_ storage: MemoryStorage) -> DurableSessions<AppState> {
        storage.reopen()
        let sessions = DurableSessions(exampleApp(), storage: storage)
        opened.add(sessions)
        return sessions
    }

    @Test func dispatchesQueuedBehindAWriteShareTheNextTransaction() async throws {
        let storage = MemoryStorage()
        let durable = sessions(storage)
        let stores = (0..<16).map { durable.makeTypedStore(for: newRecord("s\($0)")) }
        #expect(await durable.durable() == nil)
        let before = durable.statistics
        // The first commit's write waits, as behind a slow fsync, while 199 more across 16 sessions pile up.
        storage.holdWrites()
        try stores[0].dispatch(CounterAction.Increase())
        #expect(storage.writeIsHeld(), "the writer never wrote the first commit")
        for number in 1..<200 { try stores[number % stores.count].dispatch(CounterAction.Increase()) }
        storage.releaseWrites()
        #expect(await durable.durable() == nil)
        let after = durable.statistics
        #expect(after.commits - before.commits == 200)
        #expect(after.transactions - before.transactions == 2, "the held one, then everything queued behind it")
        durable.stop(snapshotting: false)

        let restored = sessions(storage).restore()
        let total = try restored.reduce(0) { $0 + (try typed($1).state.counter) }
        #expect(total == 200)
    }

    @Test func failedWritesAreReportedThenRepairedWithASnapshot() async throws {
        let storage = MemoryStorage()
        let durable = sessions(storage)
        let record = newRecord()
        let store = durable.makeTypedStore(for: record)
        #expect(await durable.durable() == nil)
        storage.failNextWrites(.max)
        try store.dispatch(CounterAction.Increase())
        #expect(await durable.durable() == .unavailable("injected failure"))
        try store.dispatch(CounterAction.Increase())
        #expect(await durable.durable() == .unavailable("injected failure"))
        // The writer retries on its own, with nothing new queued: the identity and a snapshot.
        storage.failNextWrites(0)
        #expect(await eventually { (try? storage.load(record.id))?.snapshot?.version == 2 })
        #expect(await durable.durable() == nil)
        #expect(durable.statistics.failures >= 2)
        durable.stop(snapshotting: false)

        let restored = try typed(try #require(sessions(storage).restore().first))
        #expect(restored.state.counter == 2)
        #expect(restored.version == 2)
    }

    @Test func theDurableVersionFollowsWritesAndTheFailingFlagTheirOutcome() async throws {
        let storage = MemoryStorage()
        let durable = sessions(storage)
        let version = DurableVersion()
        let store = durable.makeTypedStore(for: newRecord(), durable: version)
        try store.dispatch(CounterAction.Increase())
        #expect(await durable.durable() == nil)
        #expect(version.version == 1)
        #expect(!durable.isFailing)
        // A failed write leaves the stored version where it was, and says the storage is failing.
        storage.failNextWrites(.max)
        try store.dispatch(CounterAction.Increase())
        #expect(await durable.durable() == .unavailable("injected failure"))
        #expect(version.version == 1)
        #expect(durable.isFailing)
        // The repair stores a snapshot of version 2: the version and the flag follow.
        storage.failNextWrites(0)
        #expect(await eventually { version.version == 2 && !durable.isFailing })
        durable.stop(snapshotting: false)
    }

    /// A batch the storage refuses for its content fails the same way on every retry: after the second refusal it
    /// is set aside (its barriers fail, its sessions are dropped), the writer stops retrying it and is healthy again.
    @Test func aBatchRefusedTwiceForItsContentIsSetAsideNotRetriedForEver() async throws {
        let storage = MemoryStorage()
        let durable = sessions(storage)
        let lost = Mutex<[String]>([])
        durable.whenSessionsLost { ids in lost.withLock { $0 += ids } }
        let poisoned = newRecord("poisoned")
        let store = durable.makeTypedStore(for: poisoned)
        #expect(await durable.durable() == nil)
        storage.reject(poisoned.id)
        try store.dispatch(CounterAction.Increase())
        #expect(await durable.durable() == .rejected("injected constraint violation"))
        // The writer's own retry (the repair) is refused too: then the batch is set aside.
        #expect(await eventually { lost.withLock { $0 } == [poisoned.id] })
        #expect(storage.refusals == 2)
        #expect(!durable.isFailing)
        try await Task.sleep(for: .milliseconds(600))
        #expect(storage.refusals == 2, "the set-aside batch was retried")
        // Other sessions are written as before.
        let other = durable.makeTypedStore(for: newRecord("other"))
        try other.dispatch(CounterAction.Increase())
        #expect(await durable.durable() == nil)
        #expect((try storage.load("other"))?.record.id == "other")
        durable.stop(snapshotting: false)
    }

    @Test func whenDurableAnswersAtOnceWhenNothingIsPending() async throws {
        let durable = sessions(MemoryStorage())
        #expect(await durable.durable() == nil)
        let answered = Mutex(false)
        durable.whenDurable { _ in answered.withLock { $0 = true } }
        #expect(answered.withLock { $0 })
    }

    @Test func aClosedWriterAnswersClosed() async throws {
        let durable = sessions(MemoryStorage())
        durable.shutdown()
        #expect(await durable.durable() == .closed)
    }

    /// Its handler was once stored as the lock's own value and re-abstracted on every read: one more thunk per
    /// call, until the stack overflowed (issue 44).
    @Test func theLostSessionsHandlerCanBeCalledWithoutEnd() {
        let writer = GroupCommitWriter(
            storage: MemoryStorage(), snapshotEvery: 100, logger: Logger(label: "test"),
            encode: { StoredCommit(version: $0.version, actions: Data("[]".utf8)) })
        defer { writer.close(snapshotAll: false) }
        let calls = Mutex(0)
        writer.whenSessionsLost { _ in calls.withLock { $0 += 1 } }
        for _ in 0..<200_000 { writer.tellLost(["s"]) }
        #expect(calls.withLock { $0 } == 200_000)
    }
}
