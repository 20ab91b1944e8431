/// One committed version and the actions the reducers applied to reach it (after middleware).
///
/// Replaying these actions through the reducers alone rebuilds the state, which is what a
/// durable action log and a test store's `receive` need.
public struct CommitRecord: Sendable {
    /// The version the commit produced.
    public let version: UInt64
    /// The actions reduced, in order, as the reducers saw them.
    public let actions: [any StoreAction]
}
