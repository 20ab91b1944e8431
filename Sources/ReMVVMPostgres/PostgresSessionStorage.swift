import Logging
import ReMVVMPersistence
import Synchronization

/// Durable sessions in PostgreSQL, shared by several server nodes: identities (with hashed
/// tokens), snapshots, the action log and idempotency keys.
///
/// Each ``write(_:)`` (one group-commit batch, many sessions) is one transaction, sent as one
/// pipeline (one round trip) and committed with `synchronous_commit` on, so it is durable in
/// PostgreSQL's WAL when this returns. Every session
/// has a lease row: its `owner` node and a `fence` number. Loading a session takes it over (the
/// fence moves on); every write checks, in its own transaction, that the fences of the sessions it
/// touches are still this node's, and is refused as a whole (``StorageError/isFenced``) otherwise.
///
/// Connections, each behind a lock: one for the writer thread's batches, a few for takeovers (``loaders``), so
/// that loading a session never waits for a batch's WAL flush and several load at once, and one for topic
/// messages (its ``TopicLog`` conformance). Every call has a deadline (``PostgresTimeouts``), so a lock is never
/// held longer than one call's deadline, even when the database freezes. A lost connection or a call past its
/// deadline fails with ``StorageError/unavailable(_:)``, and the next call connects again; an error that would
/// come again (bad data, a violated constraint) fails with ``StorageError/rejected(_:)``. Listeners on connections of their
/// own hear other nodes' takeovers (``watchTakeovers(_:)``) and topic messages (``watchTopics(_:)``).
public final class PostgresSessionStorage: SessionStorage {
    /// One connection, opened again when lost.
    struct Slot {
        var connection: PostgresConnection?
        var closed = false
    }

    /// A slot of its own, so that several can be kept in an array.
    final class LoadingSlot: Sendable {
        let slot = Mutex(Slot())
    }

    /// The node's name, stored as the owner of the sessions it holds.
    public let node: String
    let url: String
    let logger: Logger
    /// The deadlines of every call on every connection.
    let timeouts: PostgresTimeouts
    private let writing = Mutex(Slot())
    /// The takeover connections: a takeover uses the first free one.
    private let loading: [LoadingSlot]
    /// Where the next takeover that finds every loading connection busy waits.
    private let nextLoading = Atomic<Int>(0)
    /// The fence this node holds for each session it created or took over.
    private let fences = Mutex<[String: Int64]>([:])
    private let listener = Mutex<NotificationListener?>(nil)
    /// The connection for topic messages: appends and reads, beside the writer's batches.
    let topicSlot = Mutex(Slot())
    /// The connection of the tidy (``deleteExpired(before:limit:)``), so that it never waits behind a batch.
    let tidySlot = Mutex(Slot())
    /// Listens for other nodes' topic messages, once ``watchTopics(_:)`` was called.
    let topicListener = Mutex<NotificationListener?>(nil)

    /// Whether ``watchTakeovers(_:)`` listens (tests turn it off to see the fence alone at work).
    private let listens: Bool

    /// Connects to `url` (a libpq URI such as `postgresql://user@127.0.0.1:5432/remvvm`), then
    /// creates or migrates the schema. Without `listensForTakeovers`, a node learns that another took
    /// a session over only when its next write for it is refused. `loaders` connections take sessions over at
    /// once (at least 1); every call has the deadlines of `timeouts` (the migration at start up to a minute).
    ///
    /// - Throws: ``StorageError`` when PostgreSQL cannot be reached or its schema is newer.
    public init(
        url: String, node: String, listensForTakeovers: Bool = true, timeouts: PostgresTimeouts = PostgresTimeouts(),
        loaders: Int = 4, logger: Logger = Logger(label: "remvvm.postgres")
    ) throws(StorageError) {
        self.url = url
        self.node = node
        self.logger = logger
        self.timeouts = timeouts
        listens = listensForTakeovers
        loading = (0..<max(loaders, 1)).map { _ in LoadingSlot() }
        do throws(PostgresError) {
            let connection = try PostgresConnection(
                url: url, applicationName: "remvvm-server \(node)", timeouts: timeouts.lenient(.seconds(60)))
            defer { connection.close() }
            try Self.migrate(connection)
        } catch {
            throw Self.storageError(error)
        }
    }

    /// Shared by every node on the database: sessions are loaded when first asked for.
    public var isShared: Bool { true }

    /// The identity of every stored session, oldest first.
    public func list() throws(StorageError) -> [SessionRecord] {
        try access(loading[0].slot) { connection throws(PostgresError) in
            let rows = try connection.execute(
                "SELECT id, token_hash, epoch, created, format, expires_at, identity FROM sessions ORDER BY created, id"
            )
            return try (0..<rows.count).map { row throws(PostgresError) in
                try Self.record(rows, row, expires: 5, identity: 6)
            }
        }
    }

    /// Takes the session over (its fence moves on, this node becomes its owner) and reads it: its
    /// identity, snapshot, the log after it and its idempotency keys, in one transaction.
    public func load(_ id: String) throws(StorageError) -> StoredSession? {
        try takeOver(id, tokenHash: nil)
    }

    /// Takes the session over and reads it, as ``load(_:)``, but only if `tokenHash` is its token's
    /// hash: checked in the same statement that moves the fence, so a wrong token moves nothing.
    public func takeOver(_ id: String, tokenHash: String) throws(StorageError) -> StoredSession? {
        try takeOver(id, tokenHash: Optional(tokenHash))
    }

    private func takeOver(_ id: String, tokenHash: String?) throws(StorageError) -> StoredSession? {
        let node = self.node
        // Forgotten before the takeover commits, so that its own notice (which may reach the listener before the
        // answer reaches this thread) finds no older fence here and is no news. A takeover whose answer is lost
        // leaves a fence no write of this node matches: those writes are refused, never wrong.
        fences.withLock { $0[id] = nil }
        return try withLoadingSlot { slot throws(StorageError) in
            try access(slot) { connection throws(PostgresError) -> StoredSession? in
                guard let (session, fence) = try Self.takeOver(id, node: node, tokenHash: tokenHash, in: connection)
                else { return nil }
                fences.withLock { $0[id] = fence }
                return session
            }
        }
    }

    /// Runs `body` with the first loading connection nobody uses, or, when all are busy, waits for one in turn
    /// (at most one call's deadline per holder).
    private func withLoadingSlot<Result: Sendable>(
        _ body: (borrowing Mutex<Slot>) throws(StorageError) -> Result
    ) throws(StorageError) -> Result {
        for candidate in loading {
            // A free slot is found with a try-lock, so that nobody waits behind a busy one while another is free
            // (another takeover may take it in between: then this one waits for that call).
            let free = candidate.slot.withLockIfAvailable { slot in !slot.closed }
            if free == true { return try body(candidate.slot) }
        }
        let turn = nextLoading.add(1, ordering: .relaxed).oldValue
        return try body(loading[turn % loading.count].slot)
    }

    /// Applies `changes` as one transaction, durable when this returns; refused as a whole when
    /// another node took over one of the sessions it touches, with every such session named in
    /// ``StorageError/lostSessions`` (whose fences this node then forgets).
    public func write(_ changes: [StorageChange]) throws(StorageError) {
        guard !changes.isEmpty else { return }
        let batch = PostgresBatch(node: node, fences: fences.withLock { $0 }, changes: changes)
        do throws(StorageError) {
            let results = try access(writing) { connection throws(PostgresError) in
                try connection.pipeline(batch.statements)
            }
            do throws(PostgresError) {
                try batch.settle(fences, after: results)
            } catch {
                throw Self.storageError(error)
            }
        } catch {
            guard error.isFenced else { throw error }
            fences.withLock { held in for id in error.lostSessions { held[id] = nil } }
            throw error
        }
    }

    /// Sets `owner` to NULL on every session this node still holds with its fence, so that the next
    /// node to see one takes it over without doubt; the fences are forgotten.
    public func releaseAll() throws(StorageError) {
        let held = fences.withLock { $0 }
        guard !held.isEmpty else { return }
        let node = self.node
        let ids = held.keys.sorted()
        _ = try access(writing) { connection throws(PostgresError) in
            try connection.execute(
                """
                UPDATE sessions s SET owner = NULL FROM unnest($1::text::text[], $2::text::bigint[]) AS f (id, fence)
                WHERE s.id = f.id AND s.fence = f.fence AND s.owner = $3::text
                """,
                [
                    .text("{" + ids.joined(separator: ",") + "}"),
                    .text("{" + ids.map { String(held[$0] ?? 0) }.joined(separator: ",") + "}"), .text(node),
                ])
        }
        fences.withLock { $0.removeAll() }
    }

    /// Listens for takeovers on a connection and thread of their own; `handler` gets the id of each
    /// session this node holds that another node took over. Once; later calls are ignored.
    public func watchTakeovers(_ handler: @escaping @Sendable (String) -> Void) {
        let node = self.node
        guard listens else { return }
        listener.withLock { listener in
            guard listener == nil else { return }
            // The payload: `<session id> <new owner> <fence>`.
            let started = NotificationListener(
                url: url, node: node, channel: Self.takeoverChannel, role: "listener", logger: logger,
                timeouts: timeouts
            ) {
                [weak self] payload in
                let parts = payload.split(separator: " ")
                guard parts.count == 3, let fence = Int64(parts[2]) else { return }
                let id = String(parts[0])
                // Only a newer lease than the one held: this node's own notices, and late ones of older
                // takeovers, are no news. Compared by fence, not by owner: two nodes might share a name.
                guard let self, self.fences.withLock({ ($0[id] ?? .max) < fence }) else { return }
                handler(id)
            }
            started.start()
            listener = started
        }
    }

    /// Closes the connections and stops listening; later calls fail with ``StorageError/closed``. Idempotent.
    public func close() {
        let listening = listener.withLock { listener in
            defer { listener = nil }
            return listener
        }
        listening?.stop()
        topicListener.withLock { listener in
            defer { listener = nil }
            return listener
        }?.stop()
        Self.close(writing)
        for slot in loading { Self.close(slot.slot) }
        Self.close(topicSlot)
        Self.close(tidySlot)
    }

    private static func close(_ slot: borrowing Mutex<Slot>) {
        slot.withLock { slot in
            slot.closed = true
            slot.connection?.close()
            slot.connection = nil
        }
    }

    /// Forgets the fences of sessions no longer stored.
    func forgetFences(_ ids: [String]) {
        guard !ids.isEmpty else { return }
        fences.withLock { held in for id in ids { held[id] = nil } }
    }

    /// The fence this node holds for a session (tests).
    func fence(of id: String) -> Int64? { fences.withLock { $0[id] } }

    /// The PostgreSQL process serving the writer's connection (tests end it).
    var backendProcess: Int32 { writing.withLock { $0.connection?.backendProcess ?? 0 } }

    /// Runs `body` on the slot's connection, connecting first if the last one was lost.
    func access<Result: Sendable>(
        _ slot: borrowing Mutex<Slot>, _ body: (PostgresConnection) throws(PostgresError) -> Result
    ) throws(StorageError) -> Result {
        let url = self.url
        let node = self.node
        let timeouts = self.timeouts
        return try slot.withLock { slot throws(StorageError) -> Result in
            guard !slot.closed else { throw .closed }
            do throws(PostgresError) {
                let connection: PostgresConnection
                if let open = slot.connection, open.isOpen {
                    connection = open
                } else {
                    slot.connection?.close()
                    slot.connection = nil
                    connection = try PostgresConnection(
                        url: url, applicationName: "remvvm-server \(node)", timeouts: timeouts)
                    slot.connection = connection
                }
                return try body(connection)
            } catch {
                if error.connectionLost {
                    slot.connection?.close()
                    slot.connection = nil
                }
                throw Self.storageError(error)
            }
        }
    }

    /// Runs `body` between BEGIN and COMMIT; rolls back when it throws.
    static func transaction<Result>(
        _ connection: PostgresConnection, _ body: () throws(PostgresError) -> Result
    ) throws(PostgresError) -> Result {
        try connection.execute("BEGIN")
        do throws(PostgresError) {
            let result = try body()
            try connection.execute("COMMIT")
            return result
        } catch {
            if connection.isOpen { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// A libpq failure as a storage error: refused by the fence (naming the lost sessions), a newer
    /// schema, rejected for good (an error that would come again), or unavailable.
    static func storageError(_ error: PostgresError) -> StorageError {
        if error.fenced {
            let lost = (error.detail ?? "").split(separator: ",").map(String.init)
            return .fenced(error.message, sessions: lost)
        }
        if error.incompatible { return .incompatible(error.message) }
        if !error.isTransient { return .rejected("PostgreSQL: \(error)") }
        return .unavailable("PostgreSQL: \(error)")
    }
}
