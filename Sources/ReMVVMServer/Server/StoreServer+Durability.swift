import Logging
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMPersistence
import Synchronization

extension StoreServer {
    /// Prepares a server whose sessions survive restarts and crashes: every commit is in the
    /// session's durable log before its dispatch is answered, and ``start()`` restores the
    /// sessions stored by the previous run with their ids, token hashes, versions and epochs.
    ///
    /// ```swift
    /// let storage = try SQLiteSessionStorage(directory: "data")
    /// let server = StoreServer(ExampleApp.definition(), configuration: configuration, storage: storage)
    /// ```
    /// - Parameters:
    ///   - definition: The app; its state must be `Codable` to be snapshotted.
    ///   - storage: Where sessions live; ``stop()`` closes it.
    ///   - durability: Snapshot frequency, state versioning and what to do with sessions that no
    ///     longer decode.
    ///   - authentication: The app's sign-in; each session's identity is stored with it.
    ///   - routes: The app's own routes (see ``AppRoute``).
    public convenience init<State: Codable & Sendable>(
        _ definition: StoreDefinition<State>,
        configuration: ServerConfiguration = ServerConfiguration(),
        storage: any SessionStorage,
        durability: DurabilityConfiguration = DurabilityConfiguration(),
        logger: Logger = Logger(label: "remvvm.server"),
        authentication: Authentication? = nil,
        routes: [AppRoute] = []
    ) {
        var durability = durability
        durability.idempotencyKeysPerSession = configuration.idempotencyKeysPerSession
        let pool = FanOutPool(threads: configuration.threads)
        let definition = Self.scheduling(definition, on: pool)
        let sessions = DurableSessions(definition, storage: storage, configuration: durability, logger: logger)
        self.init(
            actions: definition.actions, makeStore: { sessions.makeStore(for: $0, durable: $1) }, durability: sessions,
            configuration: configuration, logger: logger, topics: definition.topics, pool: pool,
            authentication: authentication, routes: routes)
    }

    /// Puts the stored sessions back in service, then lets the app resume each one; with a shared
    /// storage, loads none (each is loaded when a request first asks for it) but listens for the
    /// sessions other nodes take over.
    func restoreSessions() {
        guard let durability = api.durability, !restored.exchange(true, ordering: .relaxed) else { return }
        guard !durability.isShared else {
            // Weakly: the storage and the writer keep the handler, and the API keeps them.
            durability.whenSessionsLost { [weak api] ids in api?.evict(ids, forget: true) }
            return
        }
        var sessions = durability.restore()
        let now = api.wallNow
        var expired = 0
        sessions.removeAll { restored in
            // Expired while no server ran: deleted, its token unknown from now on.
            guard restored.record.expires > now else {
                restored.store.close()
                durability.remove(session: restored.record.id)
                expired += 1
                return true
            }
            guard
                let session = Session(
                    id: restored.record.id, tokenHash: restored.record.tokenHash, epoch: restored.record.epoch,
                    store: restored.store, idempotencyLimit: api.configuration.idempotencyKeysPerSession,
                    keys: restored.keys, base: restored.base, durable: restored.durable)
            else {
                // Only a damaged record: this server writes every id and token as 32 hex digits.
                api.logger.warning(
                    "stored session has a malformed id or token; not restored",
                    metadata: ["session.id": "\(restored.record.id.prefix(64))"])
                restored.store.close()
                return true
            }
            api.sessions.storedExpiry?.resume(session, storedUntil: restored.record.expires)
            api.sessions.adopt(session)
            return false
        }
        if expired > 0 {
            api.logger.info(
                "deleted stored sessions that expired while the server was down",
                metadata: ["sessions.expired": "\(expired)"])
        }
        for restored in sessions { restored.resume() }
    }

    /// Ends every store (no more commits, effects cancelled), snapshots them all and closes the storage.
    func closeDurableSessions() {
        guard let durability = api.durability else { return }
        for session in api.sessions.all { session.store.close() }
        durability.shutdown()
    }
}
