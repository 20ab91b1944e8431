import Foundation
@_spi(ReMVVMServer) import ReMVVM

/// Turns a session's state and commits into stored records and back, checking each record's
/// format and the state's type name and version.
struct SessionCodec<State: Codable & Sendable>: Sendable {
    let stateType: String
    let stateVersion: Int
    let migrate: (@Sendable (Data, Int) throws -> Data)?
    /// The actions some reducer handles: only they change the state on replay, so only they are logged.
    let reduced: ActionRegistry
    /// Every action the app knows, to read the log back.
    let actions: ActionRegistry
    /// The action types whose payload version is not 1, with their versions: logged beside each entry.
    let actionVersions: [String: Int]
    /// Turns the state's JSON into an older version's (``DurabilityConfiguration/downgradeState``).
    let downgradeState: (@Sendable (Data, Int) throws -> Data)?
    /// The older versions written while older nodes live (a shared storage's); the newest by default.
    let format = WriteFormatBox()

    init(definition: StoreDefinition<State>, configuration: DurabilityConfiguration) {
        stateType = configuration.stateType ?? String(reflecting: State.self)
        stateVersion = configuration.stateVersion
        migrate = configuration.migrateState
        downgradeState = configuration.downgradeState
        reduced = definition.reducer.actions
        // The log also holds topic receipts, which no client may send (so they are not in the app's actions).
        var logged = definition.actions
        logged.register(TopicReceipt.self)
        logged.register(TopicGap.self)
        actions = logged
        actionVersions = logged.versionedTypes
    }

    // MARK: - Writing

    /// A commit as a log entry: a JSON array of the envelopes of the actions that reducers handle.
    func encode(_ record: CommitRecord) throws -> StoredCommit {
        // A topic receipt is logged too: replaying it restores how far the session read the topic.
        let logged = record.actions.filter { reduced.contains($0.wireName) || $0 is TopicReceipt }.map(
            ActionEnvelope.init)
        var versions: [String: Int] = [:]
        if !actionVersions.isEmpty {
            for envelope in logged {
                if let version = actionVersions[envelope.action.wireName] {
                    versions[envelope.action.wireName] = version
                }
            }
            // While older nodes live, the actions they read in older shapes (when the types say how).
            let older = format.current.actionVersions.filter { versions[$0.key] != nil }
            if !older.isEmpty, let entry = try? encode(logged, downgrading: older) {
                versions.merge(older) { _, old in old }
                return StoredCommit(
                    version: record.version, actions: entry, versions: versions.filter { $0.value != 1 })
            }
        }
        return StoredCommit(version: record.version, actions: try JSONEncoder().encode(logged), versions: versions)
    }

    /// A log entry whose actions of the types in `older` are written at those (older) versions; throws when a
    /// type cannot write one (the entry is then written at the current versions).
    private func encode(_ logged: [ActionEnvelope], downgrading older: [String: Int]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var entry = Data("[".utf8)
        for (index, envelope) in logged.enumerated() {
            if index > 0 { entry += Data(",".utf8) }
            let name = envelope.action.wireName
            guard let version = older[name] else {
                entry += try encoder.encode(envelope)
                continue
            }
            let payload = try actions.downgradePayload(of: name, try encoder.encode(envelope.action), to: version)
            entry += Data(#"{"payload":"#.utf8) + payload + Data(#","type":"#.utf8) + (try encoder.encode(name))
            entry += Data("}".utf8)
        }
        return entry + Data("]".utf8)
    }

    /// The store's current state as a snapshot, with its topic positions when it follows topics.
    func snapshot(of store: Store<State>) throws -> StoredSnapshot {
        let (state, version, positions) = store.versionedStateAndPositions
        var json = try Self.canonical(state)
        var stateVersion = self.stateVersion
        // While older nodes live, the state in the shape they read (when the app says how).
        if let older = format.current.stateVersion, let downgradeState,
            let downgraded = try? downgradeState(json, older)
        {
            json = downgraded
            stateVersion = older
        }
        let digest = Hashing.sha256([UInt8](json))
        guard !positions.isEmpty else {
            return StoredSnapshot(
                version: version, stateType: stateType, stateVersion: stateVersion, state: json, digest: digest)
        }
        var wrapped = Data(Self.statePrefix.utf8)
        wrapped += json
        wrapped += Self.topicsSuffix(try Self.encodePositions(positions))
        return StoredSnapshot(
            version: version, format: RecordFormat.snapshotWithTopics, stateType: stateType,
            stateVersion: stateVersion, state: wrapped, digest: digest)
    }

    /// A state's JSON with its keys sorted: the same state gives the same bytes in any process and any build
    /// that encodes it the same way, so that its digest can be compared.
    static func canonical(_ state: State) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(state)
    }

    private static var statePrefix: String { #"{"state":"# }

    private static func topicsSuffix(_ positions: Data) -> Data {
        Data(#","topics":"#.utf8) + positions + Data("}".utf8)
    }

    private static func encodePositions(_ positions: [String: UInt64]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(positions)
    }

    private struct Positions: Decodable { let topics: [String: UInt64] }

    /// A snapshot's state JSON and topic positions (none before ``RecordFormat/snapshotWithTopics``).
    func unwrap(_ snapshot: StoredSnapshot) throws(RestoreError) -> (state: Data, positions: [String: UInt64]) {
        guard snapshot.format >= RecordFormat.snapshotWithTopics else { return (snapshot.state, [:]) }
        do {
            let positions = try JSONDecoder().decode(Positions.self, from: snapshot.state).topics
            let suffix = Self.topicsSuffix(try Self.encodePositions(positions))
            let prefix = Data(Self.statePrefix.utf8)
            guard snapshot.state.starts(with: prefix), snapshot.state.count >= prefix.count + suffix.count,
                snapshot.state.suffix(suffix.count).elementsEqual(suffix)
            else { throw RestoreError("its snapshot's topic positions are not where this server writes them") }
            return (Data(snapshot.state.dropFirst(prefix.count).dropLast(suffix.count)), positions)
        } catch let error as RestoreError {
            throw error
        } catch {
            throw RestoreError("its snapshot's topic positions do not decode: \(error)")
        }
    }

    // MARK: - Reading

    /// Rebuilds a stored session's store: its snapshot's state (or the initial state), then the
    /// log replayed through the reducers alone.
    ///
    /// - Returns: The store and how many commits were replayed.
    func rebuild(_ stored: StoredSession, with definition: StoreDefinition<State>) throws(RestoreError) -> (
        store: Store<State>, replayed: Int
    ) {
        guard stored.record.format <= RecordFormat.current else {
            throw RestoreError(newer("its session record", format: stored.record.format))
        }
        var state = definition.initialState
        var version: UInt64 = 0
        var positions: [String: UInt64] = [:]
        if let snapshot = stored.snapshot {
            state = try decodeState(snapshot)
            version = snapshot.version
            positions = try unwrap(snapshot).positions
        }
        let store = definition.makeStore(state: state, version: version, identity: stored.record.identity)
        if !positions.isEmpty { store.restoreTopicPositions(positions) }
        for entry in stored.log {
            guard entry.version == store.version + 1 else {
                store.close()
                throw RestoreError("its action log jumps from version \(store.version) to \(entry.version)")
            }
            do {
                try store.replay(try decodeCommit(entry))
            } catch let error as RestoreError {
                store.close()
                throw error
            } catch {
                store.close()
                throw RestoreError("replaying version \(entry.version) failed: \(error)")
            }
        }
        return (store, stored.log.count)
    }

    /// A snapshot's state, after checking what wrote it.
    func decodeState(_ snapshot: StoredSnapshot) throws(RestoreError) -> State {
        guard snapshot.format <= RecordFormat.snapshotWithTopics else {
            throw RestoreError(newer("its snapshot", format: snapshot.format, reads: RecordFormat.snapshotWithTopics))
        }
        guard snapshot.stateType == stateType else {
            throw RestoreError(
                "its state is a '\(snapshot.stateType)', not this app's '\(stateType)' "
                    + "(if the type was only renamed, set DurabilityConfiguration.stateType to the old name)")
        }
        guard snapshot.stateVersion <= stateVersion else {
            throw RestoreError(
                "its state has version \(snapshot.stateVersion), newer than this app's \(stateVersion)",
                needsNewerBuild: true)
        }
        var json = try unwrap(snapshot).state
        if snapshot.stateVersion < stateVersion, let migrate {
            do {
                json = try migrate(json, snapshot.stateVersion)
            } catch {
                throw RestoreError(
                    "migrating its state from version \(snapshot.stateVersion) to \(stateVersion) failed: \(error)")
            }
        }
        do {
            return try JSONDecoder().decode(State.self, from: json)
        } catch let error as DecodingError {
            throw RestoreError(
                "its state ('\(stateType)' version \(snapshot.stateVersion)) no longer decodes: \(Self.describe(error))"
            )
        } catch {
            throw RestoreError(
                "its state ('\(stateType)' version \(snapshot.stateVersion)) no longer decodes: \(error)")
        }
    }

    /// A log entry's commit.
    func decodeCommit(_ entry: StoredCommit) throws(RestoreError) -> CommitRecord {
        guard entry.format <= RecordFormat.current else {
            throw RestoreError(newer("its log entry for version \(entry.version)", format: entry.format))
        }
        if entry.actions.elementsEqual("[]".utf8) { return CommitRecord(version: entry.version, actions: []) }
        do {
            // Written in the shapes this build reads (what every entry of an app without versions is): one pass.
            guard entry.versions == actionVersions else {
                // Most entries hold no action of a type whose version moved: read in one pass, that is checked
                // after the fact; the others through the migrations.
                if let actions = try? actions.decodeActions(from: entry.actions),
                    actions.allSatisfy({ writtenAtCurrentVersion($0.wireName, entry) })
                {
                    return CommitRecord(version: entry.version, actions: actions)
                }
                return CommitRecord(
                    version: entry.version,
                    actions: try actions.decodeActions(from: entry.actions, writtenAt: entry.versions))
            }
            return CommitRecord(version: entry.version, actions: try actions.decodeActions(from: entry.actions))
        } catch let error as ActionMigrationError {
            throw RestoreError(
                "its log entry for version \(entry.version) cannot be read: \(error)", needsNewerBuild: error.isNewer)
        } catch {
            throw RestoreError("its log entry for version \(entry.version) no longer decodes: \(error)")
        }
    }

    /// Whether `entry` holds actions of the type `wireName` in the version this build reads.
    private func writtenAtCurrentVersion(_ wireName: String, _ entry: StoredCommit) -> Bool {
        (entry.versions[wireName] ?? 1) == (actionVersions[wireName] ?? 1)
    }

    private func newer(_ what: String, format: Int, reads: Int = RecordFormat.current) -> String {
        "\(what) has format \(format), newer than this server reads (\(reads))"
    }

    /// A decoding error as `at 'a.b': what was wrong`.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return path.isEmpty ? "at the top level" : "at '\(path)'"
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "\(parent): missing '\(key.stringValue)'"
        case .typeMismatch(let type, let context):
            return "\(path(context)): expected \(type): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "\(path(context)): expected a \(type), found null"
        case .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
