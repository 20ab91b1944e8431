import ReMVVM
import ReMVVMPersistence
import Synchronization

/// Every live session, by id; the only place sessions are created, found and ended.
///
/// Every request looks its session up here, from every worker thread at once, so the sessions are spread
/// over shards, each behind its own lock, by bits of the id: two lookups wait for each other only when
/// their sessions share a shard. Sessions are kept by their ids' bits (``SessionKey``), which the tables hold
/// inline.
final class SessionRegistry: Sendable {
    /// One part of the sessions, with its own lock.
    private final class Shard: Sendable {
        let sessions = Mutex<[SessionKey: Session]>([:])
    }

    /// A power of two, so a shard is picked with a mask.
    private static let shardCount = 16
    private let shards: [Shard] = (0..<SessionRegistry.shardCount).map { _ in Shard() }
    /// Live sessions over all shards; a new session first reserves its place here, so `limit` holds.
    private let live = Atomic<Int>(0)
    private let makeStore: @Sendable (SessionRecord) -> any ProjectedStore
    /// Told about every session that ended (deleted or expired), after its store closed.
    private let onEnd: @Sendable (Session) -> Void
    private let limit: Int
    private let idempotencyLimit: Int

    convenience init(limit: Int, idempotencyLimit: Int, makeStore: @escaping @Sendable () -> any ProjectedStore) {
        self.init(limit: limit, idempotencyLimit: idempotencyLimit, makeStore: { _ in makeStore() }, onEnd: { _ in })
    }

    /// A registry whose stores are made for each new session's identity (durable sessions log
    /// under it), and that reports every ended session to `onEnd`.
    init(
        limit: Int,
        idempotencyLimit: Int,
        makeStore: @escaping @Sendable (SessionRecord) -> any ProjectedStore,
        onEnd: @escaping @Sendable (Session) -> Void
    ) {
        self.limit = limit
        self.idempotencyLimit = idempotencyLimit
        self.makeStore = makeStore
        self.onEnd = onEnd
    }

    /// How many sessions are live.
    var count: Int { live.load(ordering: .relaxed) }

    /// Creates a session with a fresh store, or nil when the limit is reached.
    func create() -> Session? {
        guard reservePlace() else { return nil }
        let record = SessionRecord(id: SecureToken.make(), token: SecureToken.make(), epoch: SecureToken.makeEpoch())
        guard
            let session = Session(
                id: record.id,
                token: record.token,
                epoch: record.epoch,
                store: makeStore(record),
                idempotencyLimit: idempotencyLimit
            )
        else {
            // Unreachable: SecureToken writes exactly what SessionKey reads.
            live.subtract(1, ordering: .relaxed)
            return nil
        }
        shard(for: session.key).sessions.withLock { $0[session.key] = session }
        return session
    }

    /// Puts a session restored from storage back in service, under its old id and token.
    func adopt(_ session: Session) {
        let replaced = shard(for: session.key).sessions.withLock { $0.updateValue(session, forKey: session.key) }
        if replaced == nil { live.add(1, ordering: .relaxed) }
    }

    /// The session with this id if `token` is its token; nil for an unknown id or a wrong token alike.
    func find(id: some StringProtocol, token: Substring?) -> Session? {
        guard let key = SessionKey(id), let token, let presented = SessionKey(token),
            let session = shard(for: key).sessions.withLock({ $0[key] }), session.isOwned(by: presented)
        else { return nil }
        return session
    }

    /// Ends a session: removes it and closes its store (cancelling effects, waking waiters).
    @discardableResult
    func remove(id: String) -> Session? {
        guard let key = SessionKey(id) else { return nil }
        let session = shard(for: key).sessions.withLock { $0.removeValue(forKey: key) }
        if let session {
            live.subtract(1, ordering: .relaxed)
            session.store.close()
            onEnd(session)
        }
        return session
    }

    /// Ends every session idle longer than `ttl`; returns how many.
    func expire(idleLongerThan ttl: Duration) -> Int {
        let now = Session.now()
        var expired: [Session] = []
        for shard in shards {
            expired += shard.sessions.withLock { sessions -> [Session] in
                let idle = sessions.values.filter { $0.isIdle(longerThan: ttl, now: now) }
                for session in idle { sessions[session.key] = nil }
                return idle
            }
        }
        live.subtract(expired.count, ordering: .relaxed)
        for session in expired {
            session.store.close()
            onEnd(session)
        }
        return expired.count
    }

    /// Every live session (for shutdown and metrics).
    var all: [Session] {
        shards.flatMap { shard in shard.sessions.withLock { Array($0.values) } }
    }

    /// Takes one of the `limit` places for a new session; false when all are taken.
    private func reservePlace() -> Bool {
        var current = live.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = live.compareExchange(
                expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// The shard holding `key`: its bits are random, so any few of them spread the sessions evenly.
    private func shard(for key: SessionKey) -> Shard {
        shards[Int(truncatingIfNeeded: key.high) & (Self.shardCount - 1)]
    }
}
