import Foundation

/// Where durable sessions live: a small protocol, so that the embedded SQLite store and a
/// shared database for several server nodes are interchangeable.
///
/// An implementation keeps, per session, its identity (``SessionRecord``), at most one
/// snapshot of its state and the log of commits after that snapshot. ``write(_:)`` is the only
/// way to change anything: the group-commit writer hands it everything queued since its last
/// call, and expects all of it to be durable, or none of it, when it returns.
public protocol SessionStorage: Sendable {
    /// The identity of every stored session.
    func list() throws(StorageError) -> [SessionRecord]

    /// One session: its identity, its latest snapshot and the commits logged after it, in version order;
    /// nil when no such session is stored.
    func load(_ id: String) throws(StorageError) -> StoredSession?

    /// Applies `changes` in order as one atomic transaction, durable when this returns.
    func write(_ changes: [StorageChange]) throws(StorageError)

    /// Releases the storage; later calls fail with ``StorageError/closed``.
    func close()

    /// Whether several server nodes share this storage: a node then loads a session when a request
    /// first asks for it (``takeOver(_:tokenHash:)``) instead of restoring every session at start.
    var isShared: Bool { get }

    /// Makes this node the session's owner and reads it, but only if `tokenHash` is its token's
    /// hash: nil for an unknown session and a wrong token alike, and then nothing moves.
    func takeOver(_ id: String, tokenHash: String) throws(StorageError) -> StoredSession?

    /// Gives up this node's ownership of every session it still holds (clean shutdown), so that
    /// the next node to see one takes it over at once.
    func releaseAll() throws(StorageError)

    /// Calls `handler` with the id of every session this node holds that another node took over,
    /// as soon as the storage learns of it: a hint, since the fence of each write decides.
    func watchTakeovers(_ handler: @escaping @Sendable (String) -> Void)

    /// Deletes at most `limit` sessions that expired before `now` (``SessionRecord/expires``), each with its
    /// snapshot, log and idempotency keys, in one transaction; returns their ids. Several nodes may call it at
    /// once: each session is deleted by one of them.
    func deleteExpired(before now: Date, limit: Int) throws(StorageError) -> [String]

    /// Deletes at most `limit` topic counters that no retained message is left for (a shared storage's);
    /// returns how many.
    func pruneTopicCounters(limit: Int) throws(StorageError) -> Int

    /// States the versions this node reads and writes (in a shared storage, where several builds may run at once),
    /// and that it is alive.
    func announce(stateVersion: Int, actionVersions: [String: Int]) throws(StorageError)

    /// The versions of every node that announced itself within the last `seconds` (this one included).
    func liveVersions(within seconds: Double) throws(StorageError) -> [NodeVersions]

    /// Removes this node's versions (a clean stop): the others may write what only they read.
    func retire() throws(StorageError)

    /// Where the sessions are kept, for the server's start line ("the SQLite file data/sessions.sqlite"); no
    /// secret (a password) may appear in it.
    var location: String { get }
}

extension SessionStorage {
    /// The storage's type, for storages that do not say where they keep the sessions.
    public var location: String { "a \(type(of: self))" }

    /// A single node's storage: sessions are restored at start.
    public var isShared: Bool { false }

    /// Loads the session and compares its token hash; nothing to take over on a single node.
    public func takeOver(_ id: String, tokenHash: String) throws(StorageError) -> StoredSession? {
        guard let session = try load(id), session.record.tokenHash == tokenHash else { return nil }
        return session
    }

    /// Nothing to release on a single node.
    public func releaseAll() throws(StorageError) {}

    /// No other node takes anything over.
    public func watchTakeovers(_ handler: @escaping @Sendable (String) -> Void) {}

    /// Keeps every session: a storage without expiry.
    public func deleteExpired(before now: Date, limit: Int) throws(StorageError) -> [String] { [] }

    /// No topic counters of its own.
    public func pruneTopicCounters(limit: Int) throws(StorageError) -> Int { 0 }

    /// One node: nobody to tell.
    public func announce(stateVersion: Int, actionVersions: [String: Int]) throws(StorageError) {}

    /// One node: no other versions.
    public func liveVersions(within seconds: Double) throws(StorageError) -> [NodeVersions] { [] }

    /// One node: nothing to remove.
    public func retire() throws(StorageError) {}
}

extension SessionStorage {
    /// Stores a new session's identity (or replaces it).
    public func create(_ record: SessionRecord) throws(StorageError) {
        try write([.create(record)])
    }

    /// Appends commits to a session's log.
    public func append(_ commits: [StoredCommit], to session: String) throws(StorageError) {
        try write([.append(session: session, commits: commits)])
    }

    /// Replaces a session's snapshot and compacts the log entries it covers.
    public func snapshot(_ snapshot: StoredSnapshot, of session: String) throws(StorageError) {
        try write([.snapshot(session: session, snapshot)])
    }

    /// Removes a session: its identity, snapshot and log.
    public func delete(_ session: String) throws(StorageError) {
        try write([.delete(session: session)])
    }
}
