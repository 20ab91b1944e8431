import Foundation
@_spi(ReMVVMServer) import ReMVVM

/// Rebuilds stored sessions with this build before it is deployed, and says which ones it would read
/// differently: the check `remvvm-server verify-upgrade` runs, which an app's own executable exposes the same way.
///
/// For each session it migrates the snapshot the log starts from (the one before the latest, or the initial
/// state), replays the log through this build's reducers and compares the state it reaches at the latest snapshot
/// with the digest the older build recorded there (after migrating that snapshot when its state version is older).
/// Then it replays the rest of the log, as a restore would. It only reads.
///
/// ```swift
/// let source = try SQLiteSessionHistory(path: "data/sessions.sqlite")
/// let report = try UpgradeGate(MyApp.definition(), durability: durability).run(source)
/// print(report.text)
/// if !report.passed { exit(1) }
/// ```
public struct UpgradeGate<State: Codable & Sendable>: Sendable {
    private let definition: StoreDefinition<State>
    private let codec: SessionCodec<State>

    /// A gate for the app `definition`, whose stored state is named and versioned as `durability` says (its
    /// ``DurabilityConfiguration/stateVersion`` and ``DurabilityConfiguration/migrateState``).
    public init(_ definition: StoreDefinition<State>, durability: DurabilityConfiguration = DurabilityConfiguration()) {
        self.definition = definition
        codec = SessionCodec(definition: definition, configuration: durability)
    }

    /// Rebuilds every session of `source`, or `sample` of them spread evenly over the stored order.
    ///
    /// - Throws: ``StorageError`` when the source cannot be read; a session that cannot be rebuilt is a verdict.
    public func run(_ source: any SessionHistorySource, sample: Int? = nil) throws(StorageError) -> UpgradeReport {
        let started = ContinuousClock.now
        let ids = try source.sessionIDs()
        var report = UpgradeReport(stored: ids.count)
        for id in Self.sample(ids, count: sample) {
            guard let history = try source.history(id) else { continue }
            report.add(verify(history))
        }
        report.seconds = (ContinuousClock.now - started) / .seconds(1)
        return report
    }

    /// `count` ids spread evenly over `ids` (all of them when nil or not fewer).
    static func sample(_ ids: [String], count: Int?) -> [String] {
        guard let count, count < ids.count else { return ids }
        guard count > 0 else { return [] }
        return (0..<count).map { ids[$0 * ids.count / count] }
    }

    /// One session's verdict.
    public func verify(_ history: StoredHistory) -> SessionVerdict {
        let id = history.record.id
        let start = Self.start(of: history)
        var state = definition.initialState
        var version: UInt64 = 0
        if let start {
            do {
                state = try codec.decodeState(start)
            } catch {
                return SessionVerdict(
                    session: id, outcome: .undecodable, version: start.version,
                    detail: "its snapshot at version \(start.version): \(error)")
            }
            version = start.version
        }
        let origin = version
        var replayed = 0
        var checkedAt: UInt64?
        for entry in history.log where entry.version > version {
            guard entry.version == version + 1 else {
                return SessionVerdict(
                    session: id, outcome: .undecodable, replayed: replayed, checkedAt: checkedAt, version: version + 1,
                    detail: "its log jumps from version \(version) to \(entry.version)")
            }
            let commit: CommitRecord
            do {
                commit = try codec.decodeCommit(entry)
            } catch {
                return SessionVerdict(
                    session: id, outcome: .undecodable, replayed: replayed, checkedAt: checkedAt,
                    version: entry.version,
                    action: Self.firstType(in: entry), detail: error.message)
            }
            for action in commit.actions where !(action is TopicReceipt) {
                _ = definition.reducer.reduce(&state, with: action)
            }
            version = entry.version
            replayed += 1
            guard let latest = history.latest, latest.version == version, latest.version > origin else { continue }
            switch compare(state, with: latest) {
            case .matched:
                checkedAt = version
            case .unrecorded:
                break
            case .differs(let detail):
                let first = history.log.first { $0.version == origin + 1 }
                return SessionVerdict(
                    session: id, outcome: .divergent, replayed: replayed, checkedAt: latest.version,
                    version: origin + 1, action: first.flatMap(Self.firstType), detail: detail)
            case .unreadable(let error):
                return SessionVerdict(
                    session: id, outcome: .undecodable, replayed: replayed, version: latest.version,
                    detail: "its snapshot at version \(latest.version): \(error)")
            }
        }
        if let latest = history.latest, version < latest.version {
            return SessionVerdict(
                session: id, outcome: .undecodable, replayed: replayed, version: version + 1,
                detail: "its log ends at version \(version), before its snapshot at \(latest.version)")
        }
        return SessionVerdict(
            session: id, outcome: checkedAt == nil ? .unchecked : .matched, replayed: replayed, checkedAt: checkedAt)
    }

    /// Where the replay starts: the snapshot before the latest (or the initial state, nil) when the log reaches
    /// from it to the latest without a hole; otherwise the latest itself (a session stored before the previous
    /// snapshot was kept, or snapshotted by a node of an older build, which compacts the log).
    static func start(of history: StoredHistory) -> StoredSnapshot? {
        guard let latest = history.latest else { return nil }
        let from = history.previous?.version ?? 0
        guard from < latest.version else { return latest }
        var expected = from + 1
        for entry in history.log where entry.version > from && entry.version <= latest.version {
            guard entry.version == expected else { return latest }
            expected += 1
        }
        return expected == latest.version + 1 ? history.previous : latest
    }

    private enum Comparison {
        case matched
        case unrecorded
        case differs(String)
        case unreadable(RestoreError)
    }

    /// Compares a replayed state with what the older build recorded in `snapshot`.
    private func compare(_ state: State, with snapshot: StoredSnapshot) -> Comparison {
        guard let recorded = snapshot.digest else { return .unrecorded }
        let replayed: [UInt8]
        do {
            replayed = Hashing.sha256([UInt8](try SessionCodec<State>.canonical(state)))
        } catch {
            return .differs("the replayed state does not encode: \(error)")
        }
        if snapshot.stateVersion == codec.stateVersion, snapshot.stateType == codec.stateType, replayed == recorded {
            return .matched
        }
        // Recorded in an older shape, or encoded otherwise: the older build's state, read (and migrated) as a
        // restore reads it, is the reference.
        let expected: [UInt8]
        do {
            expected = Hashing.sha256([UInt8](try SessionCodec<State>.canonical(try codec.decodeState(snapshot))))
        } catch let error as RestoreError {
            return .unreadable(error)
        } catch {
            return .unreadable(RestoreError("\(error)"))
        }
        guard replayed != expected else { return .matched }
        return .differs(
            "replayed to version \(snapshot.version), the state (digest \(Hashing.hex(replayed).prefix(12))) is not "
                + "the one its snapshot recorded there (state version \(snapshot.stateVersion), digest "
                + "\(Hashing.hex(recorded).prefix(12)))")
    }

    /// The wire name of the first action of a log entry, read loosely (for naming it when it does not decode).
    static func firstType(in entry: StoredCommit) -> String? {
        (try? JSONDecoder().decode([LoggedType].self, from: entry.actions))?.first?.type
    }
}

/// A log entry's envelope, its type alone.
private struct LoggedType: Decodable {
    let type: String
}
