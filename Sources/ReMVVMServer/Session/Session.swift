import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMPersistence
import Synchronization

/// One client session: its store, its credentials and what the API keeps for it.
final class Session: Sendable {
    /// The public id in URLs.
    let id: String
    /// The SHA-256 of the bearer token, as stored (64 hex digits); the token itself is never stored.
    let tokenHash: String
    /// The id's bits, the registry's key.
    let key: SessionKey
    /// The token's bits, which a request's token is compared with, for a session this process created.
    private let tokenKey: SessionKey?
    /// For a restored session, the token's bits and text once a request proved them against ``tokenHash``:
    /// later requests compare bits, as for a new session, instead of hashing.
    private let provenToken = Mutex<(key: SessionKey, text: String)?>(nil)
    private let createdToken: String?
    /// The name of this session's history, the first half of every cursor.
    let epoch: String
    /// The version this node's store started from: 0 for a session created here, the version it was rebuilt
    /// to for one loaded from storage. A cursor older than it was not issued by this node's store; when the
    /// replayed history does not reach it, the client gets every view whole instead of an `expired` reset.
    let base: UInt64
    /// The session's store, seen only through its projections.
    let store: any ProjectedStore
    /// The highest version of the store known to be on disk (with durability): a read of a version up to it
    /// is answered at once, without a trip through the writer.
    let durable: DurableVersion
    /// Remembered dispatch answers by `Idempotency-Key`.
    let idempotency: Mutex<IdempotencyCache>
    /// Patches and answer bodies shared by every poller and stream of this session.
    let answers = AnswerCache()
    private let lastSeen: Atomic<Int64>
    /// When the stored copy expires (monotonic nanoseconds), as last queued for storage; 0 before any.
    private let storedExpiry = Atomic<Int64>(0)
    /// Keeps the stored expiry ahead of this one, once the registry holds the session (durable sessions only);
    /// retained until the session goes. A plain atomic load on every request, where `AtomicLazyReference.load()`
    /// cost some 560 instructions (it is not specialized for the type).
    private let storedExpiryKeeper = Atomic<Unmanaged<StoredExpiry>?>(nil)
    /// Whether any request used the session since it was created: until then it expires after the short
    /// ``ServerConfiguration/unusedSessionTTL``. A session restored from storage counts as used.
    private let used: Atomic<Bool>
    /// Parked long-polls.
    let parkedPolls = Atomic<Int>(0)
    /// Open event streams.
    let openStreams = Atomic<Int>(0)
    /// Set when another node took the session over and this node dropped its copy: its waiters are
    /// then let go with their cursors, not told that the session is gone.
    private let movedAway = Atomic<Bool>(false)

    /// Whether another node took the session over.
    var hasMoved: Bool { movedAway.load(ordering: .acquiring) }

    /// Marks the session as taken over by another node (before its store closes).
    func markMoved() { movedAway.store(true, ordering: .releasing) }

    /// A session for `id` and `token` as ``SecureToken/make()`` writes them; nil for any other form, which
    /// could never be looked up.
    convenience init?(
        id: String, token: String, epoch: String, store: any ProjectedStore, idempotencyLimit: Int,
        keys: [StoredIdempotencyKey] = [], durable: DurableVersion = DurableVersion()
    ) {
        guard let tokenKey = SessionKey(token) else { return nil }
        self.init(
            id: id, tokenHash: Hashing.tokenHash(token), tokenKey: tokenKey, token: token, epoch: epoch, store: store,
            idempotencyLimit: idempotencyLimit, keys: keys, durable: durable)
    }

    /// A session restored from storage, which knows its token's hash only; its store was rebuilt from
    /// version `base` (its snapshot's).
    convenience init?(
        id: String, tokenHash: String, epoch: String, store: any ProjectedStore, idempotencyLimit: Int,
        keys: [StoredIdempotencyKey] = [], base: UInt64 = 0, durable: DurableVersion = DurableVersion()
    ) {
        self.init(
            id: id, tokenHash: tokenHash, tokenKey: nil, token: nil, epoch: epoch, store: store,
            idempotencyLimit: idempotencyLimit, keys: keys, base: base, durable: durable)
    }

    private init?(
        id: String, tokenHash: String, tokenKey: SessionKey?, token: String?, epoch: String,
        store: any ProjectedStore, idempotencyLimit: Int, keys: [StoredIdempotencyKey], base: UInt64 = 0,
        durable: DurableVersion
    ) {
        guard let key = SessionKey(id) else { return nil }
        self.durable = durable
        self.base = base
        self.id = id
        self.tokenHash = tokenHash
        self.key = key
        self.tokenKey = tokenKey
        self.createdToken = token
        self.epoch = epoch
        self.store = store
        var cache = IdempotencyCache(limit: idempotencyLimit)
        for stored in keys { cache.restore(stored, epoch: epoch) }
        idempotency = Mutex(cache)
        lastSeen = Atomic(Self.now())
        used = Atomic(token == nil)
    }

    /// Whether `token` is this session's, compared in time that does not depend on where it differs.
    func isOwned(by token: SessionKey) -> Bool {
        if let tokenKey { return tokenKey.matches(token) }
        if let proven = provenToken.withLock({ $0 }) { return proven.key.matches(token) }
        let text = token.hexDigits
        let hash = Hashing.tokenHash(text)
        guard Hashing.constantTimeEqual(Array(hash.utf8), Array(tokenHash.utf8)) else { return false }
        provenToken.withLock { $0 = (token, text) }
        return true
    }

    /// The bearer token in the clear: known for a session this process created, and for a restored
    /// one once a request proved it; nil before.
    var token: String? { createdToken ?? provenToken.withLock { $0?.text } }

    /// The cursor of the store's current version.
    var cursor: Cursor { Cursor(epoch: epoch, number: store.version) }

    /// The cursor of `version` in this session's history.
    func cursor(_ version: UInt64) -> Cursor { Cursor(epoch: epoch, number: version) }

    /// Marks the session as used at `now` (monotonic nanoseconds), postponing its expiry: every request does,
    /// and so does the end of a long-poll or an event stream.
    func touch(at now: Int64 = Session.now()) {
        lastSeen.store(now, ordering: .relaxed)
        if !used.load(ordering: .relaxed) { used.store(true, ordering: .relaxed) }
        storedExpiryKeeper.load(ordering: .acquiring)?._withUnsafeGuaranteedRef { $0.used(self, at: now) }
    }

    /// Has `keeper` keep the stored expiry ahead of this one from now on, starting from `until` (monotonic
    /// nanoseconds; 0: the first use stores one). Once.
    func keepStoredExpiry(with keeper: StoredExpiry, from until: Int64 = 0) {
        if until > 0 { storedExpiry.store(until, ordering: .relaxed) }
        let retained = Unmanaged.passRetained(keeper)
        if !storedExpiryKeeper.compareExchange(expected: nil, desired: retained, ordering: .acquiringAndReleasing)
            .exchanged
        {
            retained.release()
        }
    }

    deinit {
        storedExpiryKeeper.load(ordering: .acquiring)?.release()
    }

    /// Moves the stored expiry to `until` when it is before `limit`; returns `until` if it moved (so that one of
    /// several requests at once queues it).
    func extendStoredExpiry(to until: Int64, ifBefore limit: Int64) -> Int64? {
        let stored = storedExpiry.load(ordering: .relaxed)
        guard stored < limit else { return nil }
        return storedExpiry.compareExchange(expected: stored, desired: until, ordering: .relaxed).exchanged
            ? until : nil
    }

    /// Sets when the session was last used and when its stored copy expires (monotonic nanoseconds): for a new
    /// session, both from the clock reading its stored expiry was computed from; for a restored one, from storage.
    func resumeExpiry(lastUsed: Int64, storedUntil: Int64) {
        lastSeen.store(lastUsed, ordering: .relaxed)
        storedExpiry.store(storedUntil, ordering: .relaxed)
    }

    /// Whether a long-poll or an event stream waits on the session.
    var isWaitedOn: Bool {
        parkedPolls.load(ordering: .acquiring) > 0 || openStreams.load(ordering: .acquiring) > 0
    }

    /// Whether a request used the session since it was created (see ``touch(at:)``).
    var isUsed: Bool { used.load(ordering: .relaxed) }

    /// When to look again whether the session has been idle for `ttl` nanoseconds (`unusedTTL` while no request
    /// has used it since its creation), or nil if it has: nothing waits on it and nothing used it for that long.
    ///
    /// A session someone waits on is never idle: it is looked at again a TTL later, and the end of the wait
    /// counts as a use (see ``touch(at:)``).
    func nextIdleCheck(ttl: Int64, unusedTTL: Int64? = nil, now: Int64) -> Int64? {
        if parkedPolls.load(ordering: .acquiring) > 0 || openStreams.load(ordering: .acquiring) > 0 { return now + ttl }
        let deadline = lastSeen.load(ordering: .relaxed) + (isUsed ? ttl : min(unusedTTL ?? ttl, ttl))
        return deadline < now ? nil : deadline
    }

    /// When the session was last used (monotonic nanoseconds).
    var lastUsed: Int64 { lastSeen.load(ordering: .relaxed) }

    /// Monotonic nanoseconds, the clock `lastSeen` is kept in.
    static func now() -> Int64 { MonotonicClock.nanoseconds() }
}
