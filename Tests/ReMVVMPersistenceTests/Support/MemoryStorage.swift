import Foundation
import Synchronization

@testable import ReMVVMPersistence

/// Sessions in memory, with the SQLite store's semantics: for the writer and restore tests, with
/// a count of transactions, writes the test can hold (a slow fsync, as long as it likes) and injectable
/// failures.
final class MemoryStorage: SessionStorage {
    private struct Contents {
        var records: [String: SessionRecord] = [:]
        var snapshots: [String: StoredSnapshot] = [:]
        var logs: [String: [UInt64: StoredCommit]] = [:]
        var keys: [String: [String: StoredIdempotencyKey]] = [:]
        var transactions: [[StorageChange]] = []
        var failuresLeft = 0
        /// Writes touching this session are refused for their content, every time.
        var poisoned: String?
        var refusals = 0
        var closed = false
    }

    private let contents = Mutex(Contents())
    private let hold = WriteHold()

    /// The transactions written so far.
    var transactions: [[StorageChange]] { contents.withLock { $0.transactions } }

    /// Makes the next `count` writes fail.
    func failNextWrites(_ count: Int) {
        contents.withLock { $0.failuresLeft = count }
    }

    /// Refuses every write that touches `session` for its content (``StorageError/rejected(_:)``), as a violated
    /// constraint would; nil stops.
    func reject(_ session: String?) {
        contents.withLock { $0.poisoned = session }
    }

    /// How many writes were refused by ``reject(_:)``.
    var refusals: Int { contents.withLock { $0.refusals } }

    func list() throws(StorageError) -> [SessionRecord] {
        try contents.withLock { contents throws(StorageError) in
            guard !contents.closed else { throw .closed }
            return contents.records.values.sorted { $0.id < $1.id }
        }
    }

    func load(_ id: String) throws(StorageError) -> StoredSession? {
        try contents.withLock { contents throws(StorageError) in
            guard !contents.closed else { throw .closed }
            guard let record = contents.records[id] else { return nil }
            let snapshot = contents.snapshots[id]
            let log = (contents.logs[id] ?? [:]).values
                .filter { $0.version > (snapshot?.version ?? 0) }
                .sorted { $0.version < $1.version }
            let keys = (contents.keys[id] ?? [:]).values.sorted { $0.version < $1.version }
            return StoredSession(record: record, snapshot: snapshot, log: log, keys: keys)
        }
    }

    func write(_ changes: [StorageChange]) throws(StorageError) {
        hold.pass()
        try contents.withLock { contents throws(StorageError) in
            guard !contents.closed else { throw .closed }
            if contents.failuresLeft > 0 {
                contents.failuresLeft -= 1
                throw .unavailable("injected failure")
            }
            if let poisoned = contents.poisoned, changes.contains(where: { $0.session == poisoned }) {
                contents.refusals += 1
                throw .rejected("injected constraint violation")
            }
            contents.transactions.append(changes)
            for change in changes {
                switch change {
                case .create(let record):
                    contents.records[record.id] = record
                case .append(let session, let commits):
                    for commit in commits { contents.logs[session, default: [:]][commit.version] = commit }
                case .snapshot(let session, let snapshot):
                    contents.snapshots[session] = snapshot
                    contents.logs[session] = contents.logs[session]?.filter { $0.key > snapshot.version }
                case .delete(let session):
                    contents.records[session] = nil
                    contents.snapshots[session] = nil
                    contents.logs[session] = nil
                    contents.keys[session] = nil
                case .remember(let session, let key):
                    contents.keys[session, default: [:]][key.key] = key
                case .answer(let session, let key, let answer):
                    contents.keys[session]?[key]?.answer = answer
                case .forgetKeys(let session, let keeping):
                    let kept = (contents.keys[session] ?? [:]).values.sorted { $0.version > $1.version }.prefix(keeping)
                    contents.keys[session] = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0) })
                case .touch(let session, let expires):
                    if let stored = contents.records[session]?.expires, expires > stored {
                        contents.records[session]?.expires = expires
                    }
                case .publish:
                    continue  // Not a topic log: its hub keeps no outbox.
                }
            }
        }
    }

    func close() {
        contents.withLock { $0.closed = true }
    }

    /// Opens again after ``close()`` (a restart on the same data).
    /// Makes writes wait in ``write(_:)`` until ``releaseWrites()``.
    func holdWrites() { hold.close() }

    /// Lets held and later writes through.
    func releaseWrites() { hold.open() }

    /// Whether a write is waiting in the hold; waits at most `timeout` seconds for one to arrive.
    func writeIsHeld(timeout: TimeInterval = 30) -> Bool { hold.waitForArrival(timeout: timeout) }

    func reopen() {
        contents.withLock { $0.closed = false }
    }

    /// The log entries stored for a session, snapshot or not.
    func logVersions(of id: String) -> [UInt64] {
        contents.withLock { ($0.logs[id] ?? [:]).keys.sorted() }
    }
}

/// Holds writers while closed; tells the test when one arrived.
private final class WriteHold: @unchecked Sendable {
    // Safety: `isClosed` and `waiting` are read and written only with `condition` locked.
    private let condition = NSCondition()
    private var isClosed = false
    private var waiting = 0

    func close() {
        condition.lock()
        isClosed = true
        condition.unlock()
    }

    func open() {
        condition.lock()
        isClosed = false
        condition.broadcast()
        condition.unlock()
    }

    /// Called by a writer: waits while the hold is closed.
    func pass() {
        condition.lock()
        defer { condition.unlock() }
        waiting += 1
        condition.broadcast()
        while isClosed { condition.wait() }
        waiting -= 1
    }

    func waitForArrival(timeout: TimeInterval) -> Bool {
        let end = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while waiting == 0 {
            guard condition.wait(until: end) else { return false }
        }
        return true
    }
}
