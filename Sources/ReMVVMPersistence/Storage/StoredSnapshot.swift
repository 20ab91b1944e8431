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
    /// The SHA-256 of the state's JSON (without its topic positions), as the build that took it encoded it (keys
    /// sorted): what a later build's replay of the log must reach (`remvvm-server verify-upgrade`). Nil for
    /// snapshots stored before it was kept.
    public var digest: [UInt8]?

    /// A snapshot.
    public init(
        version: UInt64, format: Int = RecordFormat.current, stateType: String, stateVersion: Int, state: Data,
        digest: [UInt8]? = nil
    ) {
        self.version = version
        self.format = format
        self.stateType = stateType
        self.stateVersion = stateVersion
        self.state = state
        self.digest = digest
    }
}
