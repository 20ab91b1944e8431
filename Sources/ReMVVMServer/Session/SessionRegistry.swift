import ReMVVM
import ReMVVMPersistence
import Synchronization

/// Every live session, by id; the only place sessions are created, found and ended.
final class SessionRegistry: Sendable {
    private let sessions = Mutex<[String: Session]>([:])
    private let makeStore: @Sendable (SessionRecord) -> any ProjectedStore
    /// Told about every session that ended (deleted, expired or refused), after its store closed.
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
    var count: Int { sessions.withLock { $0.count } }

    /// Creates a session with a fresh store, or nil when the limit is reached.
    func create() -> Session? {
        guard count < limit else { return nil }
        let record = SessionRecord(id: SecureToken.make(), token: SecureToken.make(), epoch: SecureToken.makeEpoch())
        let session = Session(
            id: record.id,
            token: record.token,
            epoch: record.epoch,
            store: makeStore(record),
            idempotencyLimit: idempotencyLimit
        )
        let added = sessions.withLock { sessions -> Bool in
            guard sessions.count < limit else { return false }
            sessions[session.id] = session
            return true
        }
        guard added else {
            session.store.close()
            onEnd(session)
            return nil
        }
        return session
    }

    /// Puts a session restored from storage back in service, under its old id and token.
    func adopt(_ session: Session) {
        sessions.withLock { $0[session.id] = session }
    }

    /// The session with this id if `token` is its token; nil for an unknown id or a wrong token alike.
    func find(id: String, token: Substring?) -> Session? {
        guard let token, let session = sessions.withLock({ $0[id] }) else { return nil }
        guard SecureToken.equal(session.token, token) else { return nil }
        return session
    }

    /// Ends a session: removes it and closes its store (cancelling effects, waking waiters).
    @discardableResult
    func remove(id: String) -> Session? {
        let session = sessions.withLock { $0.removeValue(forKey: id) }
        if let session {
            session.store.close()
            onEnd(session)
        }
        return session
    }

    /// Ends every session idle longer than `ttl`; returns how many.
    func expire(idleLongerThan ttl: Duration) -> Int {
        let now = Session.now()
        let expired = sessions.withLock { sessions -> [Session] in
            let idle = sessions.values.filter { $0.isIdle(longerThan: ttl, now: now) }
            for session in idle { sessions[session.id] = nil }
            return idle
        }
        for session in expired {
            session.store.close()
            onEnd(session)
        }
        return expired.count
    }

    /// Every live session (for shutdown and metrics).
    var all: [Session] { sessions.withLock { Array($0.values) } }
}
