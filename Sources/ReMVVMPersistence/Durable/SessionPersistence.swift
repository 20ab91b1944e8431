import Foundation
@_spi(ReMVVMServer) import ReMVVM

/// What a server needs from durability, whatever the app's state type: stores that log their
/// commits, the sessions restored at start-up, and a way to wait until writes are durable.
package protocol SessionPersistence: Sendable {
    /// A store for a new session whose every commit is logged; the session's creation is queued
    /// for storage (wait with ``whenDurable(_:)`` before handing out its credentials), and `durable` follows the
    /// highest version stored.
    func makeStore(for session: SessionRecord, durable: DurableVersion) -> any ProjectedStore

    /// Whether the storage's last write failed (and none succeeded since): a change made now could not be
    /// made durable, so dispatches and creations are refused before they change anything. An atomic load.
    var isFailing: Bool { get }

    /// Rebuilds every stored session that can be rebuilt; each must be put back in service
    /// before its ``RestoredSession/resume`` is called. Sessions that cannot be rebuilt are
    /// logged and skipped.
    func restore() -> [RestoredSession]

    /// Queues the deletion of an ended (deleted or expired) session.
    func remove(session id: String)

    /// Stops logging a session another node took over, leaving it in storage.
    func forget(session id: String)

    /// Calls `handler` once everything queued so far, commits included, is durable (nil), or with
    /// the error that kept it from being written; with a `session`, with a fenced error
    /// (``StorageError/isFenced``) when another node took that session over. It may run at once, on
    /// the caller's thread, or later on the writer's.
    func whenDurable(session: String?, _ handler: @escaping @Sendable (StorageError?) -> Void)

    /// Whether several nodes share the storage: sessions are then loaded on first use
    /// (``load(_:tokenHash:)``), not restored at start.
    var isShared: Bool { get }

    /// Where the sessions are kept (``SessionStorage/location``), for the server's start line.
    var location: String { get }

    /// Takes a stored session over and rebuilds it, if `tokenHash` is its token's hash; nil for an
    /// unknown session, a wrong token (nothing moves then) or one that cannot be rebuilt (logged).
    /// Its ``RestoredSession/resume`` must be called once it is in service.
    func load(_ id: String, tokenHash: String) throws(StorageError) -> RestoredSession?

    /// Sets what is told (on the writer's thread, or the storage's listener) which sessions another
    /// node took over, so that the server drops its copies.
    func whenSessionsLost(_ handler: @escaping @Sendable ([String]) -> Void)

    /// Snapshots every session, writes what is queued and closes the storage. Idempotent.
    func shutdown()

    /// Queues a later expiry for a session this node holds (it was used): written with the writer's next
    /// transaction, never earlier than the stored one.
    func touch(session id: String, expires: Date)

    /// Deletes at most `limit` stored sessions that expired before `now`, with their logs, keys and topic
    /// positions, in one transaction; returns their ids. Blocking: call it off the HTTP workers.
    func deleteExpired(before now: Date, limit: Int) throws(StorageError) -> [String]

    /// Deletes at most `limit` topic counters that no retained message is left for; returns how many.
    /// Blocking: call it off the HTTP workers.
    func pruneTopicCounters(limit: Int) throws(StorageError) -> Int

    /// Queues the answer of a dispatch whose commit carried `key` (``CommitMetadata/idempotency``), so
    /// that a retry after a restart gets it byte for byte; wait with ``whenDurable(_:)``.
    func recordAnswer(session id: String, key: String, answer: [UInt8])

    /// What the storage's writer has done so far, for metrics; nil when there is no writer.
    var writerStatistics: WriterStatistics? { get }

    /// States this node's versions in a shared storage and picks what it writes from the live nodes' (a rolling
    /// deploy); called at every tidy round. Blocking: call it off the HTTP workers.
    func heartbeat()
}

extension SessionPersistence {
    /// Calls `handler` once everything queued so far is durable, or with the error that kept it from being written.
    package func whenDurable(_ handler: @escaping @Sendable (StorageError?) -> Void) {
        whenDurable(session: nil, handler)
    }

    /// Keeps no answers: a retry after a restart gets one built from the stored version.
    public func recordAnswer(session id: String, key: String, answer: [UInt8]) {}

    /// No writer: nothing to count.
    package var writerStatistics: WriterStatistics? { nil }

    /// One node: nothing to state.
    package func heartbeat() {}
}
