import Foundation

/// What identifies a stored session: kept across restarts so that clients resume where they
/// were, with the same credentials and cursors.
public struct SessionRecord: Sendable, Equatable {
    /// The public id in URLs.
    public var id: String
    /// The SHA-256 of the bearer token that proves ownership, as 64 hex digits
    /// (``Hashing/tokenHash(_:)``): the token itself is never stored, so a copy of the database
    /// or a backup hands out no credentials.
    public var tokenHash: String
    /// The name of the session's history, the first half of every cursor.
    public var epoch: String
    /// When the session was created.
    public var created: Date
    /// The format of the stored record (``RecordFormat/current`` when written by this version).
    public var format: Int

    /// A session record in the current format.
    public init(
        id: String, tokenHash: String, epoch: String, created: Date = Date(), format: Int = RecordFormat.current
    ) {
        self.id = id
        self.tokenHash = tokenHash
        self.epoch = epoch
        self.created = created
        self.format = format
    }
}
