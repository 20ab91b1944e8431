import Foundation

/// A dispatch's `Idempotency-Key`, stored in the transaction of its commit, so that a retry
/// after a crash or on another node gets the first answer and applies nothing again.
public struct StoredIdempotencyKey: Sendable, Equatable {
    /// The client's key.
    public var key: String
    /// The SHA-256 digest of the request body (a retry with another body is refused).
    public var digest: [UInt8]
    /// The version the dispatch committed.
    public var version: UInt64
    /// The answer's body, stored just after the commit; nil when the process stopped in between
    /// (the client then never got the answer, and a retry gets one built from ``version``).
    public var answer: Data?

    /// A stored key.
    public init(key: String, digest: [UInt8], version: UInt64, answer: Data? = nil) {
        self.key = key
        self.digest = digest
        self.version = version
        self.answer = answer
    }
}
