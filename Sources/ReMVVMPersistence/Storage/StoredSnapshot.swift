import Foundation

/// A session's whole state at one version, tagged with what is needed to decode it later.
public struct StoredSnapshot: Sendable, Equatable {
    /// The version of the state.
    public var version: UInt64
    /// The format of this record (``RecordFormat/current`` when written by this version).
    public var format: Int
    /// The app's name for its state type (by default the Swift type's full name).
    public var stateType: String
    /// The app's version of its state's shape.
    public var stateVersion: Int
    /// The state as JSON.
    public var state: Data

    /// A snapshot.
    public init(version: UInt64, format: Int = RecordFormat.current, stateType: String, stateVersion: Int, state: Data)
    {
        self.version = version
        self.format = format
        self.stateType = stateType
        self.stateVersion = stateVersion
        self.state = state
    }
}
