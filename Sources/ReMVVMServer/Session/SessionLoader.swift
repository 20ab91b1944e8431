import Dispatch
import Foundation
import Logging
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMPersistence
import Synchronization

/// Loads, on a queue of its own, the sessions a shared storage holds and this node does not: a
/// request for one parks (no transport thread waits on the database), the loader takes the session
/// over and puts it in service, and the request goes on.
///
/// Requests for the same session with the same token that arrive while it loads share one load. The
/// token is checked by the storage in the statement that takes the session over, so a wrong token
/// never moves a session.
final class SessionLoader: Sendable {
    /// What a load found.
    enum Outcome: Sendable {
        /// The session, in service on this node.
        case loaded(Session)
        /// No such session, or a wrong token: answered as an unknown session.
        case unknown
        /// The storage could not be read.
        case unavailable(StorageError)
    }

    typealias Waiter = @Sendable (Outcome) -> Void

    private let durability: any SessionPersistence
    private let sessions: SessionRegistry
    private let idempotencyLimit: Int
    private let logger: Logger
    /// Waiters by session id and token, for the loads under way.
    private let loading = Mutex<[String: [Waiter]]>([:])
    private let queue = DispatchQueue(label: "remvvm.session-loader")
    /// The wall clock stored expiries are compared with.
    private let now: @Sendable () -> Date

    init(
        durability: any SessionPersistence, sessions: SessionRegistry, idempotencyLimit: Int, logger: Logger,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.now = now
        self.durability = durability
        self.sessions = sessions
        self.idempotencyLimit = idempotencyLimit
        self.logger = logger
    }

    /// How many requests wait for a load (tests).
    var waiting: Int { loading.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    /// Finds the session `id` for `token`, loading it if this node does not hold it; `waiter` gets the
    /// outcome, at once or later on the loader's queue.
    func load(id: SessionKey, token: SessionKey, _ waiter: @escaping Waiter) {
        let key = id.hexDigits + ":" + token.hexDigits
        enum Next { case found(Session), joined, start }
        // Looked up again under the lock that a finished load releases its waiters under: a load that
        // just put the session in service is seen here, never loaded a second time.
        let next = loading.withLock { loading -> Next in
            if let session = sessions.find(id: id, token: token) { return .found(session) }
            if loading[key] != nil {
                loading[key]?.append(waiter)
                return .joined
            }
            loading[key] = [waiter]
            return .start
        }
        switch next {
        case .found(let session): waiter(.loaded(session))
        case .joined: break
        case .start: queue.async { [self] in finish(key, load(id: id.hexDigits, token: token.hexDigits)) }
        }
    }

    private func load(id: String, token: String) -> (Outcome, resume: (@Sendable () -> Void)?) {
        let restored: RestoredSession?
        do {
            restored = try durability.load(id, tokenHash: Hashing.tokenHash(token))
        } catch {
            logger.warning(
                "cannot load a session from shared storage", metadata: ["session.id": "\(id)", "error": "\(error)"])
            return (.unavailable(error), nil)
        }
        guard let restored else { return (.unknown, nil) }
        // Expired but not tidied yet: as unknown as a deleted one, and deleted now.
        guard restored.record.expires > now() else {
            restored.store.close()
            durability.remove(session: id)
            return (.unknown, nil)
        }
        guard
            let session = Session(
                id: restored.record.id, tokenHash: restored.record.tokenHash, epoch: restored.record.epoch,
                store: restored.store, idempotencyLimit: idempotencyLimit, keys: restored.keys, base: restored.base,
                durable: restored.durable)
        else {
            restored.store.close()
            durability.forget(session: id)
            return (.unknown, nil)
        }
        return (.loaded(session), restored.resume)
    }

    /// Puts a loaded session in service, then releases the load's waiters and resumes the app's effects.
    private func finish(_ key: String, _ result: (outcome: Outcome, resume: (@Sendable () -> Void)?)) {
        let waiters = loading.withLock { loading -> [Waiter] in
            if case .loaded(let session) = result.outcome { sessions.adopt(session) }
            return loading.removeValue(forKey: key) ?? []
        }
        result.resume?()
        for waiter in waiters { waiter(result.outcome) }
    }
}
