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
    /// Stops tracking a session and deletes it from storage.
    case remove(session: String)
    /// Stops tracking a session another node took over, leaving it in storage; its later barriers fail.
    case forget(session: String)
    /// Called once everything queued before it is durable, or could not be written; with a
    /// `session`, fails (``StorageError/isFenced``) when that session was lost to another node.
    case barrier(session: String?, @Sendable (StorageError?) -> Void)
    /// Snapshots every tracked session (clean shutdown).
    case snapshotAll
}
