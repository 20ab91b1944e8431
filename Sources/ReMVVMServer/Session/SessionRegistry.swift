import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMPersistence
import Synchronization

/// Every live session, by id; the only place sessions are created, found and ended.
///
/// Every request looks its session up here, from every worker thread at once, so the sessions are spread
/// over shards, each behind its own lock, by bits of the id: two lookups wait for each other only when
/// their sessions share a shard. Sessions are kept by their ids' bits (``SessionKey``), beside them in a
/// flat table (``SessionTable``). Each shard also files its sessions by when they could next have been idle for the TTL
/// (``ExpirySchedule``), so expiring reads only those, however many sessions are live.
final class SessionRegistry: Sendable {
    /// One part of the sessions: the table and its expiry schedule, behind one lock.
    private final class Shard: Sendable {
        struct Contents {
            var sessions = SessionTable()
            var schedule: ExpirySchedule
        }

        let contents: Mutex<Contents>

        init(now: Int64) {
            contents = Mutex(Contents(schedule: ExpirySchedule(now: now)))
        }
    }

    /// A power of two, so a shard is picked with a mask.
    private static let shardCount = 16
    private let shards: [Shard]
    /// Live sessions over all shards; a new session first reserves its place here, so `limit` holds.
    private let live = Atomic<Int>(0)
    private let makeStore: @Sendable (SessionRecord, DurableVersion) -> any ProjectedStore
    /// Told about every session that ended (deleted or expired), after its store closed.
    private let onEnd: @Sendable (Session) -> Void
    private let limit: Int
    private let idempotencyLimit: Int
    /// How long a session may go unused before ``expire(now:)`` ends it, in nanoseconds.
    private let ttl: Int64
    /// Keeps the stored sessions' expiry ahead of the sessions' own (durable sessions only).
    let storedExpiry: StoredExpiry?
    /// How long a session no request used since its creation lasts, in nanoseconds (at most `ttl`).
    private let unusedTTL: Int64

    convenience init(
        limit: Int, idempotencyLimit: Int, ttl: Duration = .seconds(30 * 60), unusedTTL: Duration? = nil,
        makeStore: @escaping @Sendable () -> any ProjectedStore
    ) {
        self.init(
            limit: limit, idempotencyLimit: idempotencyLimit, ttl: ttl, unusedTTL: unusedTTL,
            makeStore: { _, _ in makeStore() }, onEnd: { _ in })
    }

    /// A registry whose stores are made for each new session's identity (durable sessions log
    /// under it and publish its stored version), whose sessions end after `ttl` unused (`unusedTTL` when no
    /// request used them after their creation; `ttl` when nil), and that reports every ended session to `onEnd`.
    init(
        limit: Int,
        idempotencyLimit: Int,
        ttl: Duration,
        unusedTTL: Duration? = nil,
        makeStore: @escaping @Sendable (SessionRecord, DurableVersion) -> any ProjectedStore,
        onEnd: @escaping @Sendable (Session) -> Void,
        storedExpiry: StoredExpiry? = nil
    ) {
        self.storedExpiry = storedExpiry
        self.limit = limit
        self.idempotencyLimit = idempotencyLimit
        self.ttl = max(MonotonicClock.nanoseconds(of: ttl), 0)
        self.unusedTTL = min(max(MonotonicClock.nanoseconds(of: unusedTTL ?? ttl), 0), self.ttl)
        self.makeStore = makeStore
        self.onEnd = onEnd
        let now = Session.now()
        shards = (0..<Self.shardCount).map { _ in Shard(now: now) }
    }

    /// The TTL, in nanoseconds.
    var timeToLive: Int64 { ttl }

    /// How many sessions are live.
    var count: Int { live.load(ordering: .relaxed) }

    /// How many filings wait in the expiry schedules (for tests: one per live session, plus ended ones whose
    /// second has not come).
    var scheduledCount: Int { shards.reduce(0) { $0 + $1.contents.withLock { $0.schedule.count } } }

    /// Creates a session with a fresh store, belonging to `identity` (nil: anonymous), or nil when the limit is
    /// reached.
    func create(identity: Identity? = nil) -> Session? {
        guard reservePlace() else { return nil }
        let token = SecureToken.make()
        // The stored copy follows the expiry computed here for the session in memory, a margin later: the short
        // one of a session nobody used yet; the first use moves both.
        let now = Session.now()
        let storedUntil = storedExpiry?.stored(forDue: now + unusedTTL)
        let record = SessionRecord(
            id: SecureToken.make(), tokenHash: Hashing.tokenHash(token), epoch: SecureToken.makeEpoch(),
            expires: storedUntil.map(StoredExpiry.date(ofMonotonic:)), identity: identity)
        let durable = DurableVersion()
        guard
            let session = Session(
                id: record.id,
                token: token,
                epoch: record.epoch,
                store: makeStore(record, durable),
                idempotencyLimit: idempotencyLimit,
                durable: durable
            )
        else {
            // Unreachable: SecureToken writes exactly what SessionKey reads.
            live.subtract(1, ordering: .relaxed)
            return nil
        }
        if let storedExpiry, let storedUntil {
            // Both expiries from one reading of the clock: the stored one exactly a margin after the other.
            session.resumeExpiry(lastUsed: now, storedUntil: storedUntil)
            session.keepStoredExpiry(with: storedExpiry)
        }
        let due = session.lastUsed + unusedTTL  // Filed again for the full TTL once a request used it.
        shard(for: session.key).contents.withLock { contents in
            contents.sessions.updateValue(session, forKey: session.key)
            contents.schedule.file(session.key, dueAt: due)
        }
        return session
    }

    /// Puts a session restored from storage back in service, under its old id and token.
    func adopt(_ session: Session) {
        if let storedExpiry { session.keepStoredExpiry(with: storedExpiry) }
        let due = session.lastUsed + ttl
        let replaced = shard(for: session.key).contents.withLock { contents in
            let replaced = contents.sessions.updateValue(session, forKey: session.key)
            if replaced == nil { contents.schedule.file(session.key, dueAt: due) }  // Else it is filed already.
            return replaced
        }
        if replaced == nil { live.add(1, ordering: .relaxed) }
    }

    /// The session with this id if `token` is its token; nil for an unknown id or a wrong token alike.
    func find(id: some StringProtocol, token: Substring?) -> Session? {
        find(id: SessionKey(id), token: token.flatMap(SessionKey.init))
    }

    /// The session under the key `id` if `token` is its token's key; nil when either is nil (not a well-formed id
    /// or token), for an unknown id, or a wrong token alike.
    func find(id: SessionKey?, token: SessionKey?) -> Session? {
        guard let id, let token, let session = shard(for: id).contents.withLock({ $0.sessions[id] }),
            session.isOwned(by: token)
        else { return nil }
        return session
    }

    /// Ends a session: removes it and closes its store (cancelling effects, waking waiters). Its filing in the
    /// expiry schedule stays until its second comes, when it finds no session under its key.
    @discardableResult
    func remove(id: String) -> Session? {
        guard let key = SessionKey(id) else { return nil }
        let session = shard(for: key).contents.withLock { $0.sessions.removeValue(forKey: key) }
        if let session {
            live.subtract(1, ordering: .relaxed)
            session.store.close()
            onEnd(session)
        }
        return session
    }

    /// Drops this node's copy of a session another node took over: removes it and closes its store, marked
    /// as moved (waiters are let go with their cursors), without reporting it as ended, so it stays in storage.
    @discardableResult
    func evict(id: String) -> Session? {
        guard let key = SessionKey(id) else { return nil }
        let session = shard(for: key).contents.withLock { $0.sessions.removeValue(forKey: key) }
        guard let session else { return nil }
        live.subtract(1, ordering: .relaxed)
        session.markMoved()
        session.store.close()
        return session
    }

    /// Ends every session that nothing waits on and nothing used for longer than the TTL (the unused-session TTL
    /// for one no request used since its creation), among those whose time may have come by `now` (monotonic
    /// nanoseconds); returns how many, and how many of them were never used. The others it looked at are filed
    /// again for when they could next have been idle that long.
    @discardableResult
    func expire(now: Int64 = Session.now()) -> (expired: Int, unused: Int) {
        var expired: [Session] = []
        var waitedOn: [Session] = []
        for shard in shards {
            expired += shard.contents.withLock { contents -> [Session] in
                var idle: [Session] = []
                for key in contents.schedule.takeDue(now: now) {
                    guard let session = contents.sessions[key] else { continue }  // Deleted meanwhile.
                    if let next = session.nextIdleCheck(ttl: ttl, unusedTTL: unusedTTL, now: now) {
                        contents.schedule.file(key, dueAt: next)
                        if storedExpiry != nil, session.isWaitedOn { waitedOn.append(session) }
                    } else {
                        contents.sessions.removeValue(forKey: key)
                        idle.append(session)
                    }
                }
                return idle
            }
        }
        // A wait counts as a use for the stored copy too, which must outlive it.
        for session in waitedOn { storedExpiry?.used(session, at: now) }
        live.subtract(expired.count, ordering: .relaxed)
        var unused = 0
        for session in expired {
            if !session.isUsed { unused += 1 }
            session.store.close()
            onEnd(session)
        }
        return (expired.count, unused)
    }

    /// How many times ``all`` walked every session: for tests that check a path (a metrics scrape) does not.
    let walks = Atomic<Int>(0)

    /// Every live session (for shutdown): O(sessions), never on a request's path.
    var all: [Session] {
        walks.add(1, ordering: .relaxed)
        return shards.flatMap { shard in shard.contents.withLock { $0.sessions.values } }
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
