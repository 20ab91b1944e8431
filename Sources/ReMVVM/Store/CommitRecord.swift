/// One committed version and the actions the reducers applied to reach it (after middleware).
///
/// Replaying these actions through the reducers alone rebuilds the state, which is what a
/// durable action log and a test store's `receive` need.
public struct CommitRecord: Sendable {
    /// The version the commit produced.
    public let version: UInt64
    /// The actions reduced, in order, as the reducers saw them.
    public let actions: [any StoreAction]
    /// What the commit's middleware published, when the hub posts through the durable writer
    /// (``TopicOutbox``): stored with the commit, in its transaction, and delivered once durable.
    public let publications: [TopicPublication]
    /// What the dispatcher passed with the dispatch (its idempotency key), logged with the commit.
    public let metadata: CommitMetadata

    /// A commit of `actions` that produced `version`; built by the store, or from a durable log
    /// to hand to ``Store/replay(_:)``.
    public init(
        version: UInt64, actions: [any StoreAction], publications: [TopicPublication] = [],
        metadata: CommitMetadata = CommitMetadata()
    ) {
        self.version = version
        self.actions = actions
        self.publications = publications
        self.metadata = metadata
    }
}
