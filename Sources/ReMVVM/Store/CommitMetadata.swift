/// What the caller of a dispatch says about it beyond its actions, carried into the ``CommitRecord`` the
/// dispatch makes, so that whoever logs the commit (a durable log) stores it in the same transaction.
///
/// Passed explicitly through ``Store/dispatch(_:views:expectedVersion:metadata:)``: commits made by effects
/// and topic deliveries carry none.
public struct CommitMetadata: Sendable, Equatable {
    /// A client's `Idempotency-Key` and the digest of the request that carried it.
    public struct Idempotency: Sendable, Equatable {
        /// The client's key.
        public let key: String
        /// SHA-256 of the request body: a retry with the same key and another body is refused.
        public let digest: [UInt8]

        /// A key and its request body's `digest`.
        public init(key: String, digest: [UInt8]) {
            self.key = key
            self.digest = digest
        }
    }

    /// The idempotency key of the request that made the commit, if it had one.
    public var idempotency: Idempotency?

    /// Metadata with `idempotency`, none by default.
    public init(idempotency: Idempotency? = nil) {
        self.idempotency = idempotency
    }
}
