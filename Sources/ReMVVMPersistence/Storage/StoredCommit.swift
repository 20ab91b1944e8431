import Foundation

/// One logged commit: the version it produced and the actions the reducers applied, as a JSON
/// array of `{"type", "payload"}` envelopes.
public struct StoredCommit: Sendable, Equatable {
    /// The version the commit produced.
    public var version: UInt64
    /// The format of ``actions`` (``RecordFormat/current`` when written by this version).
    public var format: Int
    /// The actions as a JSON array of wire envelopes.
    public var actions: Data

    /// A logged commit.
    public init(version: UInt64, format: Int = RecordFormat.current, actions: Data) {
        self.version = version
        self.format = format
        self.actions = actions
    }
}
