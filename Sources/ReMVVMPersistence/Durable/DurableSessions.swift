import Foundation
import Logging
@_spi(ReMVVMServer) import ReMVVM
import Synchronization

/// Keeps an app's sessions on durable storage: every commit goes to the session's action log
/// through the group-commit writer, states are snapshotted every few commits and at shutdown,
/// and each session is rebuilt from its snapshot and the log after it: at start-up, or, when
/// several nodes share the storage, when this node first needs it (``load(_:tokenHash:)``).
///
/// ```swift
/// let storage = try SQLiteSessionStorage(directory: "data", logger: logger)
/// let sessions = DurableSessions(ExampleApp.definition(), storage: storage)
/// ```
/// The server hands it every new session's identity (``makeStore(for:)``), removes ended
/// sessions, and answers a dispatch only once ``whenDurable(session:_:)`` says its commit is on disk.
package final class DurableSessions<State: Codable & Sendable>: SessionPersistence {
    private let definition: StoreDefinition<State>
    private let storage: any SessionStorage
    private let configuration: DurabilityConfiguration
    private let codec: SessionCodec<State>
    private let writer: GroupCommitWriter
    private let logger: Logger
    private let isShutDown = Atomic<Bool>(false)

    /// Starts the group-commit writer on `storage`.
    package init(
        _ definition: StoreDefinition<State>,
        storage: any SessionStorage,
        configuration: DurabilityConfiguration = DurabilityConfiguration(),
        logger: Logger = Logger(label: "remvvm.persistence")
    ) {
        self.definition = definition
        self.storage = storage
        self.configuration = configuration
        self.logger = logger
        let codec = SessionCodec(definition: definition, configuration: configuration)
        self.codec = codec
        // With a topic log in the storage, topic messages go out in their posters' transactions (the outbox).
        let outboxed = definition.subscriptions != nil && definition.topics != nil && storage is any TopicLog
        writer = GroupCommitWriter(
            storage: storage, snapshotEvery: configuration.snapshotEvery,
            keysPerSession: configuration.idempotencyKeysPerSession, logger: logger,
            topics: outboxed ? definition.topics : nil, encode: codec.encode)
        // A shared storage restores nothing at start: its topics are read per topic, from the first subscription.
        if storage.isShared {
            attachTopicLog()
            heartbeat()
        }
    }

    /// States this node's versions in a shared storage and, unless told to write the newest format, writes what
    /// every live node reads: older state and action versions while nodes of an older build live, this build's
    /// once the last of them is gone. Called at start and at every tidy round.
    package func heartbeat() {
        guard storage.isShared else { return }
        let own = NodeVersions(node: "", stateVersion: codec.stateVersion, actionVersions: codec.actionVersions)
        let format: WriteFormat
        do {
            try storage.announce(stateVersion: own.stateVersion, actionVersions: own.actionVersions)
            guard !configuration.writesNewestFormat else { return }
            format = WriteFormat.readable(
                by: try storage.liveVersions(within: configuration.nodeLiveness), own: own)
        } catch {
            logger.warning(
                "cannot state this node's versions in the shared storage; writing the same format as before",
                metadata: ["error": "\(error)"])
            return
        }
        guard codec.format.set(format) else { return }
        if format.isNewest {
            logger.notice(
                "every live node reads this build's versions: writing them",
                metadata: ["state.version": "\(own.stateVersion)", "action.versions": "\(own.actionVersions)"])
        } else {
            logger.notice(
                "nodes of an older build live: writing the versions they read",
                metadata: [
                    "state.version": "\(format.stateVersion ?? own.stateVersion)",
                    "action.versions": "\(format.actionVersions)",
                ])
        }
    }

    /// What the writer has done so far: transactions, commits and snapshots written.
    package var statistics: WriterStatistics { writer.statistics }

    /// The writer's statistics, for the server's metrics.
    package var writerStatistics: WriterStatistics? { writer.statistics }

    /// A logged store for a new session, as the server sees it; its identity is queued for storage, and
    /// `durable` follows its stored version.
    package func makeStore(for session: SessionRecord, durable: DurableVersion) -> any ProjectedStore {
        AnyProjectedStore(makeTypedStore(for: session, durable: durable))
    }

    /// A logged store for a new session; its identity is queued for storage.
    package func makeTypedStore(for session: SessionRecord, durable: DurableVersion = DurableVersion()) -> Store<State>
    {
        let store = definition.makeStore(identity: session.identity)
        track(store, of: session, create: true, snapshotVersion: 0, sinceSnapshot: 0, durable: durable)
        return store
    }

    /// Whether the storage's last transaction failed: a change made now would not be durable (an atomic load).
    package var isFailing: Bool { writer.isFailing }

    /// Rebuilds every stored session from its snapshot and log; those that cannot be rebuilt are logged and skipped (and deleted if so configured).
    package func restore() -> [RestoredSession] {
        attachTopicLog()
        let records: [SessionRecord]
        do {
            records = try storage.list()
        } catch {
            logger.error("cannot list the stored sessions; starting with none", metadata: ["error": "\(error)"])
            return []
        }
        var restored: [RestoredSession] = []
        for record in records {
            guard let (store, keys, base, durable) = rebuildKeepingNewer(record) else { continue }
            let definition = self.definition
            let erased = AnyProjectedStore(store)
            let latest = Array(keys.suffix(configuration.idempotencyKeysPerSession))
            restored.append(
                RestoredSession(record: record, store: erased, keys: latest, base: base, durable: durable) {
                    store.startTopics()
                    definition.onRestore(store)
                })
        }
        logger.info(
            "restored sessions from durable storage",
            metadata: [
                "sessions.restored": "\(restored.count)", "sessions.skipped": "\(records.count - restored.count)",
            ])
        return restored
    }

    /// Keeps the topics' retained history in the storage when it can (``TopicLog``), before any session
    /// resumes its topics from it.
    private func attachTopicLog() {
        guard definition.subscriptions != nil, let topics = definition.topics, let log = storage as? any TopicLog
        else { return }
        do {
            try topics.attach(log, actions: definition.actions)
            if !topics.hasOutbox { topics.attach(outbox: WriterOutbox(writer)) }
        } catch {
            logger.error(
                "cannot read the topics' retained history; topics start empty", metadata: ["error": "\(error)"])
        }
    }

    /// Queues the deletion of an ended session from storage.
    package func remove(session id: String) {
        writer.enqueue(.remove(session: id))
    }

    /// Stops logging a session another node took over; it stays in storage.
    package func forget(session id: String) {
        writer.enqueue(.forget(session: id))
    }

    /// Queues a later expiry for a session this node holds.
    package func touch(session id: String, expires: Date) {
        writer.enqueue(.touch(session: id, expires: expires))
    }

    /// Deletes at most `limit` sessions that expired before `now` from the storage; returns their ids.
    package func deleteExpired(before now: Date, limit: Int) throws(StorageError) -> [String] {
        try storage.deleteExpired(before: now, limit: limit)
    }

    /// Deletes at most `limit` topic counters without retained messages; returns how many.
    package func pruneTopicCounters(limit: Int) throws(StorageError) -> Int {
        try storage.pruneTopicCounters(limit: limit)
    }

    /// Queues the answer of a dispatch whose commit was logged with `key`.
    public func recordAnswer(session id: String, key: String, answer: [UInt8]) {
        writer.enqueue(.answer(session: id, key: key, answer: Data(answer)))
    }

    /// Calls `handler` once everything queued so far is durable, or with the error that kept it from
    /// being written; a fenced error when `session` was taken over by another node.
    package func whenDurable(session: String?, _ handler: @escaping @Sendable (StorageError?) -> Void) {
        writer.whenDurable(session: session, handler)
    }

    /// Whether the storage is shared by several nodes.
    package var isShared: Bool { storage.isShared }

    package var location: String { storage.location }

    /// Takes a stored session over (if `tokenHash` is its token's) and rebuilds it.
    ///
    /// - Throws: ``StorageError/incompatible(_:)`` when a newer build of the app wrote the session (a state or action
    ///   version above this build's): a node of that build can serve it, so it is kept, and the client is told to
    ///   retry (503).
    package func load(_ id: String, tokenHash: String) throws(StorageError) -> RestoredSession? {
        guard let stored = try storage.takeOver(id, tokenHash: tokenHash) else { return nil }
        guard let (store, keys, base, durable) = try rebuild(stored) else { return nil }
        let definition = self.definition
        let latest = Array(keys.suffix(configuration.idempotencyKeysPerSession))
        logger.info(
            "session taken over from shared storage",
            metadata: [
                "session.id": "\(id)", "store.version": "\(store.version)", "log.replayed": "\(stored.log.count)",
            ])
        return RestoredSession(
            record: stored.record, store: AnyProjectedStore(store), keys: latest, base: base, durable: durable
        ) {
            store.startTopics()
            definition.onRestore(store)
        }
    }

    /// Tells `handler` which sessions another node took over: found by a refused write, or
    /// announced by the storage (a hint, ahead of the next write).
    package func whenSessionsLost(_ handler: @escaping @Sendable ([String]) -> Void) {
        writer.whenSessionsLost(handler)
        storage.watchTakeovers { id in handler([id]) }
    }

    /// Snapshots every session, writes what is queued, gives up the sessions held in a shared
    /// storage and closes it. Idempotent.
    package func shutdown() {
        stop(snapshotting: true, releasing: true)
    }

    /// Writes what is queued and closes the storage; without `snapshotting`, the way a crash
    /// leaves it (tests).
    func stop(snapshotting: Bool, releasing: Bool = false) {
        guard !isShutDown.exchange(true, ordering: .relaxed) else { return }
        // Gone: the other nodes may write what only they read.
        if releasing, storage.isShared {
            do {
                try storage.retire()
            } catch {
                logger.warning(
                    "cannot remove this node's versions from the shared storage", metadata: ["error": "\(error)"])
            }
        }
        writer.close(snapshotAll: snapshotting, release: releasing)
        logger.info("durable storage closed", metadata: ["storage.transactions": "\(writer.statistics.transactions)"])
    }

    /// A rebuilt session: its store, its latest idempotency keys, the version it was rebuilt to, and its
    /// stored version as the writer keeps it.
    private typealias Rebuilt = (Store<State>, [StoredIdempotencyKey], base: UInt64, durable: DurableVersion)

    /// Registers `store` with the writer, then logs its every commit.
    private func track(
        _ store: Store<State>, of session: SessionRecord, create: Bool, snapshotVersion: UInt64, sinceSnapshot: Int,
        durable: DurableVersion
    ) {
        let codec = self.codec
        let tracked = WriterSession(
            record: session, snapshot: { try codec.snapshot(of: store) }, snapshotVersion: snapshotVersion,
            sinceSnapshot: sinceSnapshot, durable: durable)
        writer.enqueue(.register(tracked, create: create ? session : nil))
        let writer = self.writer
        let id = session.id
        // Weakly: the writer keeps `tracked`, whose snapshot closure keeps the store, so a strong
        // reference here would make a cycle that outlives shutdown (LeakSanitizer reports it).
        // The record carries the dispatch's idempotency key (its metadata), logged in the same transaction.
        store.onCommit { [weak writer] record in
            writer?.enqueue(.commit(session: id, record: record))
        }
    }

    /// One stored session's store, or nil (logged, and dropped if so configured) when it cannot be rebuilt; one a
    /// newer build wrote is logged and kept, whatever the configuration.
    private func rebuildKeepingNewer(_ record: SessionRecord) -> Rebuilt? {
        let stored: StoredSession
        do {
            guard let loaded = try storage.load(record.id) else { return nil }
            stored = loaded
        } catch {
            // Not a decoding problem: never dropped, whatever the configuration.
            logger.error(
                "cannot read session \(record.id) from durable storage: \(error); it is not served and kept on disk",
                metadata: ["session.id": "\(record.id)"])
            return nil
        }
        do {
            // A single node cannot serve it at all (a build rolled back): an error, not a rolling deploy's warning.
            return try rebuild(stored, newerLoggedAt: .error)
        } catch {
            return nil
        }
    }

    /// A loaded session's store, tracked by the writer, or nil (logged, and dropped if so configured).
    ///
    /// - Throws: ``StorageError/incompatible(_:)`` for a session a newer build wrote: logged at `level`, never
    ///   dropped.
    private func rebuild(_ stored: StoredSession, newerLoggedAt level: Logger.Level = .warning) throws(StorageError)
        -> Rebuilt?
    {
        let record = stored.record
        do {
            let (store, replayed) = try codec.rebuild(stored, with: definition)
            // Everything it was rebuilt from is stored.
            let durable = DurableVersion(store.version)
            track(
                store, of: record, create: false, snapshotVersion: stored.snapshot?.version ?? 0,
                sinceSnapshot: replayed, durable: durable)
            return (store, stored.keys, store.version, durable)
        } catch  where error.needsNewerBuild {
            logger.log(
                level: level,
                "session \(record.id) was written by a newer build of the app: \(error); it is kept for a node of that build",
                metadata: ["session.id": "\(record.id)"])
            throw .incompatible("session \(record.id) was written by a newer build of the app: \(error)")
        } catch {
            skip(record, reason: "\(error)")
            return nil
        }
    }

    private func skip(_ record: SessionRecord, reason: String) {
        guard configuration.dropUndecodableSessions else {
            logger.error(
                """
                cannot restore session \(record.id): \(reason); it is not served and kept on disk \
                (drop undecodable sessions to delete it)
                """,
                metadata: ["session.id": "\(record.id)"])
            return
        }
        do {
            try storage.delete(record.id)
            logger.error(
                "cannot restore session \(record.id): \(reason); it was deleted (drop undecodable sessions is on)",
                metadata: ["session.id": "\(record.id)"])
        } catch {
            logger.error(
                "cannot restore session \(record.id): \(reason); deleting it failed too: \(error)",
                metadata: ["session.id": "\(record.id)"])
        }
    }
}
