/// What the group-commit writer has done so far.
public struct WriterStatistics: Sendable, Equatable {
    /// Transactions written (each one fsync with full durability).
    public var transactions = 0
    /// Commits appended to session logs.
    public var commits = 0
    /// Snapshots written.
    public var snapshots = 0
    /// Transactions that failed.
    public var failures = 0

    /// No work yet.
    public init() {}
}
