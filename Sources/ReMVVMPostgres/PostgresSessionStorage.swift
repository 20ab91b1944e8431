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
/// One connection, behind a lock: the writer thread is its only steady user. A lost connection
/// fails the call in progress with ``StorageError/unavailable(_:)``; the next call connects again.
public final class PostgresSessionStorage: SessionStorage {
    struct State {
        var connection: PostgresConnection?
        /// The fence this node holds for each session it created or took over.
        var fences: [String: Int64] = [:]
        var closed = false
    }

    /// The node's name, stored as the owner of the sessions it holds.
    public let node: String
    private let url: String
    let logger: Logger
    private let state: Mutex<State>

    /// Connects to `url` (a libpq URI such as `postgresql://user@127.0.0.1:5432/remvvm`), then
    /// creates or migrates the schema.
    ///
    /// - Throws: ``StorageError`` when PostgreSQL cannot be reached or its schema is newer.
    public init(url: String, node: String, logger: Logger = Logger(label: "remvvm.postgres")) throws(StorageError) {
        self.url = url
        self.node = node
        self.logger = logger
        let connection: PostgresConnection
        do throws(PostgresError) {
            connection = try PostgresConnection(url: url, applicationName: "remvvm-server \(node)")
            try Self.migrate(connection)
        } catch {
            throw Self.storageError(error)
        }
        state = Mutex(State(connection: connection))
    }

    /// The identity of every stored session, oldest first.
    public func list() throws(StorageError) -> [SessionRecord] {
        try access { connection, _ throws(PostgresError) in
            let rows = try connection.execute(
                "SELECT id, token_hash, epoch, created, format FROM sessions ORDER BY created, id")
            return try (0..<rows.count).map { row throws(PostgresError) in try Self.record(rows, row) }
        }
    }

    /// Takes the session over (its fence moves on, this node becomes its owner) and reads it: its
    /// identity, snapshot, the log after it and its idempotency keys, in one transaction.
    public func load(_ id: String) throws(StorageError) -> StoredSession? {
        let node = self.node
        return try access { connection, fences throws(PostgresError) in
            try Self.transaction(connection) { () throws(PostgresError) -> StoredSession? in
                guard let (session, fence) = try Self.takeOver(id, node: node, in: connection) else { return nil }
                fences[id] = fence
                return session
            }
        }
    }

    /// Applies `changes` as one transaction, durable when this returns; refused as a whole when
    /// another node took over one of the sessions it touches.
    public func write(_ changes: [StorageChange]) throws(StorageError) {
        guard !changes.isEmpty else { return }
        let node = self.node
        try access { connection, fences throws(PostgresError) in
            let batch = PostgresBatch(node: node, fences: fences, changes: changes)
            let results = try connection.pipeline(batch.statements)
            fences = try batch.fences(after: results)
        }
    }

    /// Closes the connection; later calls fail with ``StorageError/closed``. Idempotent.
    public func close() {
        state.withLock { state in
            state.closed = true
            state.connection?.close()
            state.connection = nil
        }
    }

    /// The fence this node holds for a session (tests).
    func fence(of id: String) -> Int64? { state.withLock { $0.fences[id] } }

    /// The PostgreSQL process serving this storage's connection (tests end it).
    var backendProcess: Int32 { state.withLock { $0.connection?.backendProcess ?? 0 } }

    /// Runs `body` on the connection, connecting first if the last one was lost.
    private func access<Result: Sendable>(
        _ body: (PostgresConnection, inout [String: Int64]) throws(PostgresError) -> Result
    ) throws(StorageError) -> Result {
        let url = self.url
        let node = self.node
        return try state.withLock { state throws(StorageError) -> Result in
            guard !state.closed else { throw .closed }
            do throws(PostgresError) {
                let connection: PostgresConnection
                if let open = state.connection, open.isOpen {
                    connection = open
                } else {
                    state.connection?.close()
                    state.connection = nil
                    connection = try PostgresConnection(url: url, applicationName: "remvvm-server \(node)")
                    state.connection = connection
                }
                return try body(connection, &state.fences)
            } catch {
                if error.connectionLost {
                    state.connection?.close()
                    state.connection = nil
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

    /// A libpq failure as a storage error: refused by the fence, a newer schema, or unavailable.
    static func storageError(_ error: PostgresError) -> StorageError {
        if error.fenced { return .fenced(error.message) }
        if error.incompatible { return .incompatible(error.message) }
        return .unavailable("PostgreSQL: \(error)")
    }
}
