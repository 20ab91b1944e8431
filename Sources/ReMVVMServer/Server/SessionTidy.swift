import Dispatch
import Foundation
import Logging
import ReMVVMPersistence
import ServiceLifecycle
import Synchronization

/// Deletes the stored sessions that expired, with their logs, idempotency keys and topic positions: those no node
/// holds any more (after a crash, a deploy, or a client that never came back), which no registry expires.
///
/// A `Service`: ``run()`` tidies every ``ServerConfiguration/tidyInterval`` until the task is cancelled or a graceful
/// shutdown begins; ``StoreServer/run()`` runs it beside the server. Each round deletes in batches of
/// ``ServerConfiguration/tidyBatchSize``, one transaction each, until a batch comes back short; then, on a shared
/// storage, prunes the topic counters no message is left for. The storage calls block, so they run on a queue of
/// their own, never on an HTTP worker nor on Swift's few concurrency threads, each bounded by the storage's own
/// timeouts. Several nodes tidy at once without deleting a session twice (the storage skips the rows another
/// holds). A session a node holds is never deleted: its stored expiry runs ahead of its expiry in memory
/// (``StoredExpiry``).
final class SessionTidy: Service {
    /// What one round did.
    struct Round: Sendable, Equatable {
        /// Sessions deleted.
        var sessions = 0
        /// Batches (transactions) that deleted them.
        var batches = 0
        /// Topic counters pruned.
        var topicCounters = 0
        /// Whether a storage call failed (the round stopped there).
        var failed = false
    }

    /// The most batches one round deletes, so that a huge backlog is spread over rounds.
    static let batchesPerRound = 100

    private let durability: any SessionPersistence
    private let interval: Duration
    private let batchSize: Int
    private let now: @Sendable () -> Date
    /// Told the ids of the sessions each batch deleted.
    private let deleted: @Sendable ([String]) -> Void
    private let logger: Logger
    private let queue = DispatchQueue(label: "remvvm.tidy")
    /// Set when ``run()`` is cancelled: a round under way stops after its current batch.
    private let stopping = Atomic<Bool>(false)

    init(
        durability: any SessionPersistence, interval: Duration, batchSize: Int, logger: Logger,
        now: @escaping @Sendable () -> Date = Date.init, deleted: @escaping @Sendable ([String]) -> Void = { _ in }
    ) {
        self.durability = durability
        self.interval = interval
        self.batchSize = max(batchSize, 1)
        self.now = now
        self.deleted = deleted
        self.logger = logger
    }

    /// Tidies every interval until cancelled or a graceful shutdown begins.
    func run() async throws {
        let interval = self.interval
        do {
            try await cancelWhenGracefulShutdown { [self] in
                try await withTaskCancellationHandler {
                    while true {
                        try await Task.sleep(for: interval)
                        _ = await tidyOffThread()
                    }
                } onCancel: {
                    stopping.store(true, ordering: .relaxed)
                }
            }
        } catch is CancellationError {
            return
        }
    }

    /// One round on the tidy's queue, awaited without holding a concurrency thread.
    func tidyOffThread() async -> Round {
        await withCheckedContinuation { (done: CheckedContinuation<Round, Never>) in
            queue.async { [self] in done.resume(returning: tidy()) }
        }
    }

    /// One round, blocking: deletes the sessions expired before `time` (by default now) in batches until one comes
    /// back short, then prunes the idle topic counters of a shared storage.
    func tidy(before time: Date? = nil) -> Round {
        let cutoff = time ?? now()
        var round = Round()
        do {
            while round.batches < Self.batchesPerRound, !stopping.load(ordering: .relaxed) {
                let ids = try durability.deleteExpired(before: cutoff, limit: batchSize)
                if ids.isEmpty { break }
                round.batches += 1
                round.sessions += ids.count
                deleted(ids)
                if ids.count < batchSize { break }
            }
            if durability.isShared {
                durability.heartbeat()
                round.topicCounters = try durability.pruneTopicCounters(limit: batchSize)
            }
        } catch {
            round.failed = true
            logger.warning(
                "cannot delete expired sessions from durable storage; the next round tries again",
                metadata: ["error": "\(error)", "sessions.deleted": "\(round.sessions)"])
        }
        if round.sessions > 0 || round.topicCounters > 0 {
            logger.info(
                "deleted expired sessions from durable storage",
                metadata: [
                    "sessions.deleted": "\(round.sessions)", "storage.transactions": "\(round.batches)",
                    "topics.counters_pruned": "\(round.topicCounters)",
                ])
        }
        return round
    }
}
