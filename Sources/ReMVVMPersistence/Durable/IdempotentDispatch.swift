/// The `Idempotency-Key` of the dispatch running on this thread, so that the commit it makes is
/// logged with its key in the same transaction.
///
/// The server binds it around `dispatch`; the store calls its commit listeners synchronously,
/// inside that call, so the durable log reads it there. Commits of effects run elsewhere and
/// carry no key.
public enum IdempotentDispatch {
    /// A key and the digest of its request body.
    public struct Note: Sendable, Equatable {
        /// The client's key.
        public let key: String
        /// SHA-256 of the request body.
        public let digest: [UInt8]

        /// A note for `key` and the body's `digest`.
        public init(key: String, digest: [UInt8]) {
            self.key = key
            self.digest = digest
        }
    }

    /// The current dispatch's key, if any.
    @TaskLocal public static var current: Note?
}
