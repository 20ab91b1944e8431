import Foundation

/// How sessions are kept on disk: snapshot frequency, how stored state is named and versioned,
/// and what to do with sessions that no longer decode.
public struct DurabilityConfiguration: Sendable {
    /// A session's state is snapshotted after this many logged commits, so that a restore
    /// replays at most this many; the log before the previous snapshot is deleted (the log since it is what
    /// `verify-upgrade` replays, and a divergence it finds is named to within one such interval).
    public var snapshotEvery = 1_000
    /// Deletes sessions that cannot be restored (their state or log no longer decodes) instead
    /// of keeping them on disk for a later version to read.
    public var dropUndecodableSessions = false
    /// The name stored with every snapshot; nil means the state's full Swift type name. Set it
    /// when you rename the state type, so that stored sessions still match.
    public var stateType: String?
    /// The version of the state's shape, stored with every snapshot. Raise it when a change makes
    /// old snapshots undecodable, and handle older versions in ``migrateState``.
    public var stateVersion = 1
    /// Turns a snapshot's JSON of an older ``stateVersion`` (the second argument) into JSON of the
    /// current one; nil decodes older snapshots as they are.
    public var migrateState: (@Sendable (_ state: Data, _ fromVersion: Int) throws -> Data)?

    /// Turns a snapshot's JSON of the current ``stateVersion`` into JSON of an older one (the second argument), so
    /// that during a rolling deploy on a shared storage this node writes states the older nodes still running read;
    /// nil writes the current version (older nodes then answer 503 for those sessions until a newer node serves
    /// them).
    public var downgradeState: (@Sendable (_ state: Data, _ toVersion: Int) throws -> Data)?
    /// Writes the newest state and action versions even while nodes of an older build live (an operator's
    /// override: those nodes then answer 503 for the sessions this node writes).
    public var writesNewestFormat = false
    /// Seconds after its last announcement that a node of a shared storage counts as gone (a crashed node):
    /// each node announces itself at every tidy round (`--tidy-interval`, 60 s).
    public var nodeLiveness: Double = 180

    /// How many idempotency keys are kept per session, with their answers: the latest ones. The
    /// server sets it to its own limit.
    public var idempotencyKeysPerSession = 256

    /// Snapshots every 1,000 commits; undecodable sessions are kept.
    public init() {}
}
