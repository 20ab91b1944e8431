import Foundation
import ReMVVM

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
    /// When the stored session expires unless a node extends it (``StorageChange/touch(session:expires:)``):
    /// the tidy deletes it after this, and a load finds it unknown. Absolute, set by the node from whatever
    /// expiry its registry computes, so the storage needs no TTL of its own.
    public var expires: Date
    /// Whom the session belongs to, as the app's authenticator said when it was created; nil for an anonymous
    /// session. Stored with the record (as JSON, ``identityJSON``), so a restart or another node keeps it.
    public var identity: Identity?

    /// How long a session lives after it was stored when nobody says otherwise: the default session TTL
    /// (30 minutes). Sessions stored before expiry existed count as used when the schema was migrated.
    public static let defaultLifetime: TimeInterval = 30 * 60

    /// A session record in the current format; it expires at `expires`, by default
    /// ``defaultLifetime`` after `created`.
    public init(
        id: String, tokenHash: String, epoch: String, created: Date = Date(), format: Int = RecordFormat.current,
        expires: Date? = nil, identity: Identity? = nil
    ) {
        self.identity = identity
        self.id = id
        self.tokenHash = tokenHash
        self.epoch = epoch
        self.created = created
        self.format = format
        self.expires = expires ?? created.addingTimeInterval(Self.defaultLifetime)
    }
}

extension SessionRecord {
    /// ``identity`` as the storages keep it: JSON with sorted keys, nil for an anonymous session.
    public var identityJSON: String? {
        guard let identity else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // An Identity is strings only: encoding it cannot fail.
        return (try? encoder.encode(identity)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The identity stored as `json` (``identityJSON``); nil for none.
    ///
    /// - Throws: ``StorageError/corrupt(_:)`` when the stored text is not an identity.
    public static func identity(fromJSON json: String?) throws(StorageError) -> Identity? {
        guard let json else { return nil }
        do {
            return try JSONDecoder().decode(Identity.self, from: Data(json.utf8))
        } catch {
            throw StorageError.corrupt("a stored session's identity is not readable: \(error)")
        }
    }
}
