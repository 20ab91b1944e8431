import Synchronization

/// What one node of a cluster reads and writes: its app's state version and the payload versions of its action
/// types (those other than 1). Each node states them in the shared storage, so that during a rolling deploy the
/// newer nodes write only what every live node reads.
public struct NodeVersions: Sendable, Equatable, Codable {
    /// The node's name (its sessions' owner name).
    public var node: String
    /// The state version it reads and writes (``DurabilityConfiguration/stateVersion``).
    public var stateVersion: Int
    /// The payload version of each of its action types whose version is not 1.
    public var actionVersions: [String: Int]

    /// A node's versions.
    public init(node: String, stateVersion: Int, actionVersions: [String: Int]) {
        self.node = node
        self.stateVersion = stateVersion
        self.actionVersions = actionVersions
    }
}

/// The older versions a node writes while older nodes live: for the state, and per action type; nil in
/// ``WriteFormat/current`` means the node's own.
struct WriteFormat: Sendable, Equatable {
    /// The state version snapshots are written at, when below the node's own.
    var stateVersion: Int?
    /// The payload version of each action type written below the node's own.
    var actionVersions: [String: Int] = [:]

    /// What this node writes when every live node reads what it reads.
    var isNewest: Bool { stateVersion == nil && actionVersions.isEmpty }

    /// What a node of `own` versions writes so that every node of `live` reads it: the lowest versions.
    static func readable(by live: [NodeVersions], own: NodeVersions) -> WriteFormat {
        var format = WriteFormat()
        let state = live.map(\.stateVersion).min() ?? own.stateVersion
        if state < own.stateVersion { format.stateVersion = state }
        for (type, version) in own.actionVersions {
            let lowest = live.map { $0.actionVersions[type] ?? 1 }.min() ?? version
            if lowest < version { format.actionVersions[type] = lowest }
        }
        return format
    }
}

/// The write format shared by a node's codec and its heartbeat.
final class WriteFormatBox: Sendable {
    private let format = Mutex(WriteFormat())

    /// The format written now.
    var current: WriteFormat { format.withLock { $0 } }

    /// Replaces it; whether it changed.
    func set(_ new: WriteFormat) -> Bool {
        format.withLock { format in
            guard format != new else { return false }
            format = new
            return true
        }
    }
}
