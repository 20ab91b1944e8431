import Foundation
@_spi(ReMVVMServer) import ReMVVM

/// One thing queued for the group-commit writer, carried out in queue order.
enum WriterItem: Sendable {
    /// Starts tracking a session; `create` also stores its identity.
    case register(WriterSession, create: SessionRecord?)
    /// A commit of a tracked session, to append to its log with its idempotency key (``CommitRecord/metadata``).
    case commit(session: String, record: CommitRecord)
    /// The answer of a dispatch whose commit was queued with `key`.
    case answer(session: String, key: String, answer: Data)
    /// Moves a tracked session's stored expiry to `expires` (if later): it was used.
    case touch(session: String, expires: Date)
    /// Stops tracking a session and deletes it from storage.
    case remove(session: String)
    /// Stops tracking a session another node took over, leaving it in storage; its later barriers fail.
    case forget(session: String)
    /// Called once everything queued before it is durable, or could not be written; with a
    /// `session`, fails (``StorageError/isFenced``) when that session was lost to another node.
    case barrier(session: String?, @Sendable (StorageError?) -> Void)
    /// Snapshots every tracked session (clean shutdown).
    case snapshotAll
    /// Topic messages published from outside a session, in a transaction of their own; `reply` gets their
    /// positions once durable and delivered, or the error that kept them from being written.
    case post([TopicPublication], reply: @Sendable (Result<[UInt64], StorageError>) -> Void)
}
