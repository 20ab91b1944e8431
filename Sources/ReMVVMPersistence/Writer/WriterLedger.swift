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
    }

    private(set) var sessions: [String: WriterSession] = [:]
    /// Sessions whose stored log may have a hole after a failed write: the next transaction
    /// writes their identity and a full snapshot, which supersedes the hole.
    private(set) var repairs: Set<String> = []
    /// Deletions whose transaction failed, to retry.
    private(set) var pendingDeletes: Set<String> = []
    /// Idempotency keys and answers whose transaction failed, to write again with the repair.
    private(set) var pendingKeys: [StorageChange] = []
    /// Sessions another node took over: no longer tracked, and their barriers fail.
    private(set) var lost: Set<String> = []
    /// Transactions refused in a row for their content (``StorageError/isRejected``): at two, the batch is set aside.
    var rejections = 0
    let snapshotEvery: Int
    /// Idempotency keys kept per session in storage: the older ones are forgotten at each snapshot.
    let keysPerSession: Int
    let encode: @Sendable (CommitRecord) throws -> StoredCommit
    let logger: Logger

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
    var needsRepair: Bool { !repairs.isEmpty || !pendingDeletes.isEmpty || !pendingKeys.isEmpty }

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
            case .remember(let id, _) where sessions[id] != nil, .answer(let id, _, _) where sessions[id] != nil:
                plan.changes.append(change)
            default: continue
            }
        }
        pendingKeys.removeAll()
        for item in items {
            switch item {
            case .register(let session, let create):
                sessions[session.record.id] = session
                lost.remove(session.record.id)
                if let create {
                    plan.changes.append(.create(create))
                    plan.touched.insert(create.id)
                }
            case .commit(let id, let record, let idempotency):
                append(record, of: id, to: &plan)
                if let idempotency, sessions[id] != nil {
                    let key = StoredIdempotencyKey(
                        key: idempotency.key, digest: idempotency.digest, version: record.version)
                    plan.changes.append(.remember(session: id, key))
                }
            case .answer(let id, let key, let answer):
                if sessions[id] != nil { plan.changes.append(.answer(session: id, key: key, answer: answer)) }
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
        let dropped = Set(ids)
        let known = ids.filter { id in sessions[id] != nil || plan.changes.contains { $0.session == id } }
        for id in dropped {
            sessions[id] = nil
            repairs.remove(id)
            pendingDeletes.remove(id)
            lost.insert(id)
        }
        pendingKeys.removeAll { dropped.contains($0.session) }
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

    /// The transaction of `plan` failed: its sessions get repaired and its deletions retried.
    mutating func failed(_ plan: Plan) {
        for id in plan.touched where sessions[id] != nil { repairs.insert(id) }
        pendingDeletes.formUnion(plan.deleted)
        for change in plan.changes {
            switch change {
            case .remember, .answer: pendingKeys.append(change)
            default: continue
            }
        }
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
            .forgetKeys(let id, _):
            id
        }
    }
}
