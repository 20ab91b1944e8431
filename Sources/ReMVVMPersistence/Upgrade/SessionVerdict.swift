/// What the upgrade gate found for one stored session.
public struct SessionVerdict: Sendable, Equatable, Codable {
    /// How a session fared.
    public enum Outcome: String, Sendable, Codable {
        /// Replayed with this build, it reached the digest of its latest snapshot.
        case matched
        /// It was rebuilt, but nothing recorded could be compared: no snapshot with a digest after the log (a
        /// session with no snapshot yet, or one stored before digests were kept).
        case unchecked
        /// Replayed with this build, it reached another state than the one its latest snapshot recorded.
        case divergent
        /// This build cannot read its snapshot or a log entry (or its log has a hole).
        case undecodable
    }

    /// The session's id.
    public var session: String
    /// How it fared.
    public var outcome: Outcome
    /// How many log entries were replayed.
    public var replayed: Int
    /// The version of the snapshot whose digest the replay was compared with; nil when none was.
    public var checkedAt: UInt64?
    /// For a divergent or undecodable session, the version of the first action where it differs or fails: for a
    /// divergence, the first one replayed since the last state known to match (the replay is compared at
    /// snapshots, so the difference lies between it and ``checkedAt``).
    public var version: UInt64?
    /// The wire name of the action at ``version`` (the first of its commit); nil when it is not an action.
    public var action: String?
    /// What went wrong, for a person.
    public var detail: String?

    /// A verdict.
    public init(
        session: String, outcome: Outcome, replayed: Int = 0, checkedAt: UInt64? = nil, version: UInt64? = nil,
        action: String? = nil, detail: String? = nil
    ) {
        self.session = session
        self.outcome = outcome
        self.replayed = replayed
        self.checkedAt = checkedAt
        self.version = version
        self.action = action
        self.detail = detail
    }

    /// Whether the session stops a deploy.
    public var fails: Bool { outcome == .divergent || outcome == .undecodable }
}
