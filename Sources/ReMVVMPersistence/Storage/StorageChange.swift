import Foundation

/// One change to the stored sessions; ``SessionStorage/write(_:)`` applies a list of them as
/// one transaction.
public enum StorageChange: Sendable {
    /// Stores a session's identity, replacing one with the same id.
    case create(SessionRecord)
    /// Appends commits to a session's log (replacing entries with the same versions).
    case append(session: String, commits: [StoredCommit])
    /// Replaces the session's snapshot and removes the log entries it covers; a storage may keep the snapshot it
    /// replaces and the log since that one (SQLite and PostgreSQL do), for `verify-upgrade` to replay.
    case snapshot(session: String, StoredSnapshot)
    /// Removes everything stored for the session.
    case delete(session: String)
    /// Stores a dispatch's idempotency key with the commit it made (replacing one with the same key).
    case remember(session: String, StoredIdempotencyKey)
    /// Stores the answer of the dispatch that used `key`.
    case answer(session: String, key: String, answer: Data)
    /// Forgets all but the session's `keeping` latest idempotency keys.
    case forgetKeys(session: String, keeping: Int)
    /// Moves the session's expiry to `expires` if that is later (never earlier): the node that holds it
    /// used it. Written by the node that holds the session only; ignored for a session it no longer holds.
    case touch(session: String, expires: Date)
    /// Appends a message to its topic at the topic's next position, which the storage sets on `publication`;
    /// written by the session's commit (`session` empty for a publish from outside a session).
    case publish(session: String, StoredPublication)
}
