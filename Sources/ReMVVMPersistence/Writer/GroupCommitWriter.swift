import Dispatch
import Foundation
import Logging
@_spi(ReMVVMServer) import ReMVVM
import Synchronization

/// Writes every session's commits to storage on one thread of its own, batching everything
/// queued meanwhile into one transaction: group commit.
///
/// Stores queue their commits from inside their serial section (a lock and an append), so the
/// log is in version order per session and in dispatch order across sessions. While one
/// transaction is being made durable, new commits pile up, and the next transaction takes them
/// all: under load, many dispatches share one fsync. A ``whenDurable(_:)`` barrier is answered
/// once everything queued before it is durable, which is when the HTTP layer answers a dispatch.
final class GroupCommitWriter: Sendable {
    private struct Queue {
        var items: [WriterItem] = []
        /// The writer thread waits on the semaphore and must be woken.
        var sleeping = false
        /// The writer thread holds items it has not written yet.
        var busy = false
        /// The last transaction failed; barriers must wait for the repair.
        var unhealthy = false
        var closed = false
        /// Sessions lost to another node (a copy of the ledger's set, for the barriers answered at once).
        var lost: Set<String> = []
    }

    private let queue = Mutex(Queue())
    private let wakeUp = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let storage: any SessionStorage
    private let stats = Mutex(WriterStatistics())
    private let logger: Logger
    /// Touched by the writer thread only; a lock nobody else takes keeps the compiler's checks.
    private let ledger: Mutex<WriterLedger>
    /// Whether the last transaction failed (cleared by the next that succeeds): read without a lock by
    /// dispatches, which are refused before reducing meanwhile.
    private let failing = Atomic<Bool>(false)
    /// Told which sessions another node took over, before their barriers fail. A class holds the closure:
    /// a closure that is a `Mutex`'s own value gains a re-abstraction thunk on every `withLock` passing it
    /// `inout`, and overflows the stack after enough calls.
    private let onLost = Mutex<LostHandler?>(nil)

    /// The handler of lost sessions, copied out of its lock as a reference.
    private final class LostHandler: Sendable {
        let call: @Sendable ([String]) -> Void

        init(_ call: @escaping @Sendable ([String]) -> Void) {
            self.call = call
        }
    }

    /// The hub that gets each transaction's topic messages once durable (the outbox); nil for none.
    private let topics: TopicHub?

    /// How long the thread waits before retrying a failed write when nothing new arrives.
    static let retryDelay: DispatchTimeInterval = .milliseconds(200)

    /// Starts the writer thread.
    init(
        storage: any SessionStorage,
        snapshotEvery: Int,
        keysPerSession: Int = 256,
        logger: Logger,
        topics: TopicHub? = nil,
        encode: @escaping @Sendable (CommitRecord) throws -> StoredCommit
    ) {
        self.storage = storage
        self.logger = logger
        self.topics = topics
        var books = WriterLedger(
            snapshotEvery: snapshotEvery, keysPerSession: keysPerSession, logger: logger, encode: encode)
        if let topics { books.retainedMessages = topics.configuration.retainedMessages }
        ledger = Mutex(books)
        let thread = Thread { [self] in self.run() }
        thread.name = "remvvm.group-commit"
        thread.start()
    }

    /// Whether the last transaction failed and no later one has succeeded yet: the storage is known to be
    /// unreachable (or refusing), so a new change would not be made durable now.
    var isFailing: Bool { failing.load(ordering: .relaxed) }

    /// What the writer has done so far.
    var statistics: WriterStatistics { stats.withLock { $0 } }

    /// Queues an item; false once the writer is closed.
    @discardableResult
    func enqueue(_ item: WriterItem) -> Bool {
        let (accepted, wake) = queue.withLock { queue -> (Bool, Bool) in
            guard !queue.closed else { return (false, false) }
            queue.items.append(item)
            guard queue.sleeping else { return (true, false) }
            queue.sleeping = false
            return (true, true)
        }
        if wake { wakeUp.signal() }
        return accepted
    }

    /// Sets what is told, on the writer thread, which sessions another node took over: called
    /// after their changes were dropped and before their barriers fail.
    func whenSessionsLost(_ handler: @escaping @Sendable ([String]) -> Void) {
        let box = LostHandler(handler)
        onLost.withLock { $0 = box }
    }

    /// Calls `handler` once everything queued so far is durable (nil), or with the error that
    /// kept it from being written; with a `session`, with a ``StorageError/isFenced`` error when
    /// another node took that session over. Immediately when nothing is pending.
    func whenDurable(session: String? = nil, _ handler: @escaping @Sendable (StorageError?) -> Void) {
        enum Decision { case now(StorageError?), queued, wake }
        let decision = queue.withLock { queue -> Decision in
            if queue.closed { return .now(.closed) }
            if queue.items.isEmpty, !queue.busy, !queue.unhealthy {
                guard let session, !queue.lost.isEmpty, queue.lost.contains(session) else { return .now(nil) }
                return .now(Self.moved(session))
            }
            queue.items.append(.barrier(session: session, handler))
            guard queue.sleeping else { return .queued }
            queue.sleeping = false
            return .wake
        }
        switch decision {
        case .now(let error): handler(error)
        case .queued: break
        case .wake: wakeUp.signal()
        }
    }

    /// Writes what is queued (with final snapshots when `snapshotAll`), stops the thread, releases
    /// the sessions this node holds when `release` (a shared storage's next node takes them at once)
    /// and closes the storage. Waits at most `timeout` for the last write.
    func close(snapshotAll: Bool, release: Bool = false, timeout: Duration = .seconds(30)) {
        if snapshotAll { enqueue(.snapshotAll) }
        let wasOpen = queue.withLock { queue -> Bool in
            defer { queue.closed = true }
            return !queue.closed
        }
        guard wasOpen else { return }
        wakeUp.signal()
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        if finished.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut {
            logger.error("the durable writer did not finish in time; the last commits may be lost")
        } else if release {
            do {
                try storage.releaseAll()
            } catch {
                logger.warning(
                    "cannot release the sessions in storage; the next node takes them over anyway",
                    metadata: ["error": "\(error)"])
            }
        }
        storage.close()
    }

    // MARK: - The writer thread

    private func run() {
        while true {
            let (items, closing) = queue.withLock { queue -> ([WriterItem], Bool) in
                let items = queue.items
                queue.items = []
                queue.busy = !items.isEmpty
                if items.isEmpty, !queue.closed { queue.sleeping = true }
                return (items, queue.closed)
            }
            let repairing = ledger.withLock { $0.needsRepair }
            if items.isEmpty {
                if closing { break }
                if repairing {
                    if wakeUp.wait(timeout: .now() + Self.retryDelay) == .timedOut {
                        queue.withLock { $0.sleeping = false }
                        write([])
                    }
                } else {
                    wakeUp.wait()
                }
                continue
            }
            write(items)
        }
        finished.signal()
    }

    /// The error a barrier of a session lost to another node gets.
    static func moved(_ session: String) -> StorageError {
        .fenced("another node took the session over", sessions: [session])
    }

    /// Writes one batch as one transaction and answers its barriers.
    ///
    /// A batch refused because another node took some of its sessions over is written again at once
    /// without those sessions' changes: the other sessions' commits are not failed with them. A batch refused for
    /// its content twice in a row (``StorageError/isRejected``: its repair failed the same way) is set aside
    /// (``WriterLedger/setAside(_:)``): its barriers fail, its sessions are dropped, and the writer is healthy again.
    private func write(_ items: [WriterItem]) {
        let storage = self.storage
        let outcome = ledger.withLock { books -> Outcome in
            books.pruneLost(now: books.clock())
            var plan = books.plan(items)
            var lost: [String] = []
            while !plan.changes.isEmpty {
                guard let failure = Self.write(plan.changes, to: storage) else { break }
                if failure.isFenced {
                    let dropped = books.drop(failure.lostSessions, from: &plan)
                    if !dropped.isEmpty {
                        lost += dropped
                        continue
                    }
                }
                books.rejections = failure.isRejected ? books.rejections + 1 : 0
                if books.rejections >= 2 {
                    let setAside = books.setAside(&plan)
                    return Outcome(
                        plan: plan, failure: failure, healthy: !books.needsRepair, lost: lost + setAside,
                        lostNow: books.lost, setAside: setAside)
                }
                books.failed(plan)
                return Outcome(plan: plan, failure: failure, healthy: false, lost: lost, lostNow: books.lost)
            }
            books.rejections = 0
            books.published(plan)
            return Outcome(plan: plan, failure: nil, healthy: !books.needsRepair, lost: lost, lostNow: books.lost)
        }
        let (plan, failure, healthy, lost, lostNow) = (
            outcome.plan, outcome.failure, outcome.healthy, outcome.lost, outcome.lostNow
        )
        failing.store(failure != nil && outcome.setAside == nil, ordering: .relaxed)
        stats.withLock { stats in
            guard failure == nil else {
                stats.failures += 1
                return
            }
            if !plan.changes.isEmpty { stats.transactions += 1 }
            stats.commits += plan.commits
            stats.snapshots += plan.snapshots
        }
        if let setAside = outcome.setAside, let failure {
            logger.error(
                "the storage refused a batch twice for its content; it is set aside and its sessions dropped",
                metadata: [
                    "error": "\(failure)", "sessions.set_aside": "\(setAside.count)",
                    "session.ids": "\(setAside.prefix(8).joined(separator: ","))",
                ])
        } else if let failure {
            logger.error(
                "cannot write to durable storage; the dispatches waiting for it are answered with an error",
                metadata: ["error": "\(failure)", "storage.changes": "\(plan.changes.count)"])
        }
        if lost.count > (outcome.setAside?.count ?? 0) {
            logger.warning(
                "another node took sessions over; this node's copies are dropped",
                metadata: ["sessions.lost": "\(lost.count)", "session.ids": "\(lost.prefix(8).joined(separator: ","))"])
        }
        if !lost.isEmpty { tellLost(lost) }
        queue.withLock { queue in
            queue.unhealthy = !healthy
            queue.lost = lostNow
        }
        // Durable now: members get the messages before anyone (their posters included) is answered.
        if failure == nil, let topics, !plan.publications.isEmpty {
            topics.deliver(
                durable: plan.publications.compactMap { publication in
                    publication.stored.position.map { (publication.message, $0) }
                })
        }
        for (stored, reply) in plan.posts {
            if let failure {
                reply(.failure(failure))
            } else {
                reply(.success(stored.map { $0.position ?? 0 }))
            }
        }
        for (session, barrier) in plan.barriers {
            if let failure {
                barrier(failure)
            } else if let session, lostNow.contains(session) {
                barrier(Self.moved(session))
            } else {
                barrier(nil)
            }
        }
    }

    /// Posts topic messages published from outside a session in a transaction of their own and waits until
    /// they are durable and delivered; their positions, or the error that kept them from being written.
    func post(_ publications: [TopicPublication]) throws(StorageError) -> [UInt64] {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<[UInt64], StorageError>>(.failure(.closed))
        let queued = enqueue(
            .post(publications) { result in
                outcome.withLock { $0 = result }
                done.signal()
            })
        guard queued else { throw .closed }
        done.wait()
        return try outcome.withLock { $0 }.get()
    }

    /// Tells the handler of lost sessions (``whenSessionsLost(_:)``) about `lost`.
    func tellLost(_ lost: [String]) {
        onLost.withLock { $0 }?.call(lost)
    }

    /// What one batch came to.
    private struct Outcome {
        var plan: WriterLedger.Plan
        var failure: StorageError?
        /// Whether nothing is left to repair.
        var healthy: Bool
        /// Sessions dropped by this batch (lost to another node, or set aside).
        var lost: [String]
        /// Every session lost so far.
        var lostNow: Set<String>
        /// The sessions of a batch set aside, when it was.
        var setAside: [String]? = nil
    }

    private static func write(_ changes: [StorageChange], to storage: any SessionStorage) -> StorageError? {
        do {
            try storage.write(changes)
            return nil
        } catch {
            return error
        }
    }
}
