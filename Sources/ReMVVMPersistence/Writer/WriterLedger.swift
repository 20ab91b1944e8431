import Dispatch
import Foundation
import Logging
@_spi(ReMVVMServer) import ReMVVM

/// The writer thread's books: the sessions it tracks, and what a failed write left to repair.
///
/// Turns a batch of queued items into the changes of one transaction. Owned by the writer
/// thread alone, and free of I/O, so that it is tested without a database.
struct WriterLedger {
    /// The changes of one transaction and what to do once it is written.
    struct Plan {
        var changes: [StorageChange] = []
        var barriers: [(session: String?, handler: @Sendable (StorageError?) -> Void)] = []
        var commits = 0
        var snapshots = 0
        /// Sessions whose log or snapshot this transaction writes.
        var touched: Set<String> = []
        /// Sessions this transaction deletes.
        var deleted: Set<String> = []
        /// The highest version of each session this transaction stores (a commit or a snapshot).
        var written: [String: UInt64] = [:]
        /// The topic messages this transaction stores, in order, each with what the hub delivers.
        var publications: [(stored: StoredPublication, message: TopicPublication)] = []
        /// Publishes from outside a session, answered once this transaction is durable (or failed).
        var posts: [(stored: [StoredPublication], reply: @Sendable (Result<[UInt64], StorageError>) -> Void)] = []
    }

    private(set) var sessions: [String: WriterSession] = [:]
    /// Sessions whose stored log may have a hole after a failed write: the next transaction
    /// writes their identity and a full snapshot, which supersedes the hole.
    private(set) var repairs: Set<String> = []
    /// Deletions whose transaction failed, to retry.
    private(set) var pendingDeletes: Set<String> = []
    /// Idempotency keys, answers and expiry touches whose transaction failed, to write again with the repair.
    private(set) var pendingKeys: [StorageChange] = []
    /// Topic messages of commits whose transaction failed, to write again with the repair (the commit is in
    /// memory and in the repair's snapshot, so its messages must go out too).
    private(set) var pendingPublications: [(session: String, message: TopicPublication)] = []
    /// How many of its latest messages each topic keeps in storage.
    var retainedMessages = 50
    /// Sessions another node took over: no longer tracked, and their barriers fail.
    private(set) var lost: Set<String> = []
    /// When each session of ``lost`` was lost (the writer's monotonic nanoseconds), so that ``pruneLost(now:)``
    /// forgets it once no request that could still ask about it is left.
    private var lostAt: [String: UInt64] = [:]
    /// The oldest time in ``lostAt`` (a lower bound): pruning looks at the set only once it may have work.
    private var oldestLost: UInt64 = .max
    /// How long a lost session is remembered: far longer than any request holding this node's old copy lives
    /// (a long-poll waits at most a minute), after which no barrier or removal of it can come any more.
    static let lostRetention: UInt64 = 10 * 60 * 1_000_000_000
    /// Transactions refused in a row for their content (``StorageError/isRejected``): at two, the batch is set aside.
    var rejections = 0
    let snapshotEvery: Int
    /// Idempotency keys kept per session in storage: the older ones are forgotten at each snapshot.
    let keysPerSession: Int
    let encode: @Sendable (CommitRecord) throws -> StoredCommit
    let logger: Logger
    /// Monotonic nanoseconds, when sessions were lost (tests move it by hand).
    var clock: @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }

    init(
        snapshotEvery: Int, keysPerSession: Int = 256, logger: Logger,
        encode: @escaping @Sendable (CommitRecord) throws -> StoredCommit
    ) {
        self.snapshotEvery = max(snapshotEvery, 1)
        self.keysPerSession = max(keysPerSession, 1)
        self.logger = logger
        self.encode = encode
    }

    /// Whether an earlier failure still needs a write, even with nothing new queued.
    var needsRepair: Bool {
        !repairs.isEmpty || !pendingDeletes.isEmpty || !pendingKeys.isEmpty || !pendingPublications.isEmpty
    }

    /// Plans the transaction for `items`, in queue order, plus the repairs left by a failure.
    mutating func plan(_ items: [WriterItem]) -> Plan {
        var plan = Plan()
        var snapshotAll = false
        for id in pendingDeletes where sessions[id] == nil {
            plan.changes.append(.delete(session: id))
            plan.deleted.insert(id)
        }
        pendingDeletes.removeAll()
        for change in pendingKeys {
            switch change {
            case .remember(let id, _) where sessions[id] != nil, .answer(let id, _, _) where sessions[id] != nil,
                .touch(let id, _) where sessions[id] != nil:
                plan.changes.append(change)
            default: continue
            }
        }
        pendingKeys.removeAll()
        for (id, message) in pendingPublications where sessions[id] != nil {
            publish(message, of: id, to: &plan)
        }
        pendingPublications.removeAll()
        for item in items {
            switch item {
            case .register(let session, let create):
                sessions[session.record.id] = session
                if lost.remove(session.record.id) != nil { lostAt[session.record.id] = nil }
                if let create {
                    plan.changes.append(.create(create))
                    plan.touched.insert(create.id)
                }
            case .commit(let id, let record):
                append(record, of: id, to: &plan)
                if let idempotency = record.metadata.idempotency, sessions[id] != nil {
                    let key = StoredIdempotencyKey(
                        key: idempotency.key, digest: idempotency.digest, version: record.version)
                    plan.changes.append(.remember(session: id, key))
                }
                if sessions[id] != nil {
                    for message in record.publications { publish(message, of: id, to: &plan) }
                }
            case .post(let messages, let reply):
                plan.posts.append((messages.map { publish($0, of: "", to: &plan) }, reply))
            case .answer(let id, let key, let answer):
                if sessions[id] != nil { plan.changes.append(.answer(session: id, key: key, answer: answer)) }
            case .touch(let id, let expires):
                // A repair writes the identity again: with the latest expiry, never an older one.
                guard let session = sessions[id] else { continue }
                if expires > session.record.expires { sessions[id]?.record.expires = expires }
                plan.changes.append(.touch(session: id, expires: expires))
            case .remove(let id):
                // A session another node took over is its to delete.
                guard !lost.contains(id) else { continue }
                sessions[id] = nil
                repairs.remove(id)
                plan.touched.remove(id)
                plan.changes.append(.delete(session: id))
                plan.deleted.insert(id)
            case .forget(let id):
                _ = drop([id], from: &plan)
            case .barrier(let session, let handler):
                plan.barriers.append((session, handler))
            case .snapshotAll:
                snapshotAll = true
            }
        }
        let candidates = snapshotAll ? Set(sessions.keys) : plan.touched.union(repairs)
        for id in candidates.sorted() {
            guard let session = sessions[id] else { continue }
            let repairing = repairs.contains(id)
            guard snapshotAll || repairing || session.sinceSnapshot >= snapshotEvery else { continue }
            snapshot(id, session, repairing: repairing, into: &plan)
        }
        return plan
    }

    /// Another node took over `ids`: they are no longer tracked (nothing of them is written again),
    /// and `plan` loses their changes; returns the ids that were tracked or written by `plan`.
    mutating func drop(_ ids: [String], from plan: inout Plan) -> [String] {
        let now = clock()
        let dropped = Set(ids)
        let known = ids.filter { id in sessions[id] != nil || plan.changes.contains { $0.session == id } }
        for id in dropped {
            sessions[id] = nil
            repairs.remove(id)
            pendingDeletes.remove(id)
            lost.insert(id)
            lostAt[id] = now
        }
        oldestLost = min(oldestLost, now)
        pendingKeys.removeAll { dropped.contains($0.session) }
        pendingPublications.removeAll { dropped.contains($0.session) }
        let unpublished = Set(
            plan.changes.compactMap { change -> ObjectIdentifier? in
                guard case .publish(let id, let stored) = change, dropped.contains(id) else { return nil }
                return ObjectIdentifier(stored)
            })
        plan.publications.removeAll { unpublished.contains(ObjectIdentifier($0.stored)) }
        plan.changes.removeAll { dropped.contains($0.session) }
        plan.touched.subtract(dropped)
        plan.deleted.subtract(dropped)
        for id in dropped { plan.written[id] = nil }
        return known
    }

    /// The transaction of `plan` was refused for its content twice in a row (the repair included), so retrying it
    /// would fail for ever: every session it touches is dropped, as if another node had taken it over (the server
    /// drops its copy, and a shared storage's next request loads it as last stored), and nothing of it is
    /// retried. Returns the sessions dropped.
    mutating func setAside(_ plan: inout Plan) -> [String] {
        let ids = Set(plan.changes.map(\.session)).union(plan.touched).union(plan.deleted).sorted()
        rejections = 0
        return drop(ids, from: &plan)
    }

    /// The transaction of `plan` is durable: publishes each written session's highest stored version, before
    /// any barrier of the plan is answered.
    func published(_ plan: Plan) {
        for (id, version) in plan.written { sessions[id]?.durable.advance(to: version) }
    }

    /// Whether `id` was lost to another node (and not taken back since).
    func isLost(_ id: String) -> Bool { lost.contains(id) }

    /// Forgets the sessions lost more than ``lostRetention`` before `now` (monotonic nanoseconds): the set
    /// only grows otherwise, by every session another node ever took from this one. Cheap when nothing is due.
    mutating func pruneLost(now: UInt64) {
        guard oldestLost != .max, now >= oldestLost, now - oldestLost > Self.lostRetention else { return }
        var oldest = UInt64.max
        for (id, time) in lostAt {
            if now >= time, now - time > Self.lostRetention {
                lostAt[id] = nil
                lost.remove(id)
            } else {
                oldest = min(oldest, time)
            }
        }
        oldestLost = oldest
    }

    /// The transaction of `plan` failed: its sessions get repaired and its deletions retried.
    mutating func failed(_ plan: Plan) {
        for id in plan.touched where sessions[id] != nil { repairs.insert(id) }
        pendingDeletes.formUnion(plan.deleted)
        for change in plan.changes {
            switch change {
            case .remember, .answer, .touch: pendingKeys.append(change)
            default: continue
            }
        }
        for change in plan.changes {
            guard case .publish(let id, let stored) = change, !id.isEmpty,
                let message = plan.publications.first(where: { $0.stored === stored })?.message
            else { continue }
            pendingPublications.append((id, message))
        }
    }

    /// Adds a topic message to the transaction, in order after what `id` wrote before it.
    @discardableResult
    private func publish(_ message: TopicPublication, of id: String, to plan: inout Plan) -> StoredPublication {
        let stored = StoredPublication(topic: message.topic, action: message.encoded, retaining: retainedMessages)
        plan.changes.append(.publish(session: id, stored))
        plan.publications.append((stored, message))
        return stored
    }

    private mutating func append(_ record: CommitRecord, of id: String, to plan: inout Plan) {
        guard var session = sessions[id], record.version > session.snapshotVersion else { return }
        session.sinceSnapshot += 1
        sessions[id] = session
        plan.touched.insert(id)
        do {
            let commit = try encode(record)
            if case .append(let last, var commits) = plan.changes.last, last == id {
                commits.append(commit)
                plan.changes[plan.changes.count - 1] = .append(session: id, commits: commits)
            } else {
                plan.changes.append(.append(session: id, commits: [commit]))
            }
            plan.commits += 1
            plan.written[id] = max(plan.written[id] ?? 0, record.version)
        } catch {
            // The log would have a hole: a snapshot in this same transaction covers it.
            logger.error(
                "cannot encode a commit for the action log; the session is snapshotted instead",
                metadata: ["session.id": "\(id)", "store.version": "\(record.version)", "error": "\(error)"])
            repairs.insert(id)
        }
    }

    private mutating func snapshot(_ id: String, _ session: WriterSession, repairing: Bool, into plan: inout Plan) {
        do {
            let snapshot = try session.snapshot()
            if repairing { plan.changes.append(.create(session.record)) }
            plan.changes.append(.snapshot(session: id, snapshot))
            plan.changes.append(.forgetKeys(session: id, keeping: keysPerSession))
            plan.touched.insert(id)
            plan.snapshots += 1
            plan.written[id] = max(plan.written[id] ?? 0, snapshot.version)
            var updated = session
            updated.snapshotVersion = snapshot.version
            updated.sinceSnapshot = 0
            sessions[id] = updated
            repairs.remove(id)
        } catch {
            // Encoding the state is deterministic: retrying would only fail again.
            repairs.remove(id)
            logger.error(
                "cannot snapshot a session's state; its action log keeps growing",
                metadata: ["session.id": "\(id)", "error": "\(error)"])
        }
    }
}

extension StorageChange {
    /// The session the change is about.
    var session: String {
        switch self {
        case .create(let record): record.id
        case .append(let id, _), .snapshot(let id, _), .delete(let id), .remember(let id, _), .answer(let id, _, _),
            .forgetKeys(let id, _), .touch(let id, _), .publish(let id, _):
            id
        }
    }
}
