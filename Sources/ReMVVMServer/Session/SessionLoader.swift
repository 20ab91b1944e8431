import Dispatch
import Foundation
import Logging
import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMPersistence
import Synchronization

/// Loads, on lanes of its own, the sessions a shared storage holds and this node does not: a request for one
/// parks (no transport thread waits on the database), a lane takes the session over and puts it in service, and
/// the request goes on.
///
/// Bounded and shared, so that ids nobody holds cannot starve real takeovers:
/// - requests for the same session with the same token share one load (the storage is read once, however many
///   clients reconnect to it);
/// - at most ``Limits/pending`` loads wait or run at once; a request beyond gets ``Outcome/busy`` (503 with
///   `Retry-After`);
/// - an id and token found unknown are answered from a short negative cache for ``Limits/unknownTTL``;
/// - ``Limits/lanes`` loads run at once, in arrival order, each on a serial queue of its own (the storage has as
///   many connections for them).
///
/// The token is checked by the storage in the statement that takes the session over, so a wrong token never moves
/// a session.
final class SessionLoader: Sendable {
    /// What a load found.
    enum Outcome: Sendable {
        /// The session, in service on this node.
        case loaded(Session)
        /// No such session, or a wrong token: answered as an unknown session.
        case unknown
        /// The storage could not be read.
        case unavailable(StorageError)
        /// Too many loads are pending: retry shortly.
        case busy
    }

    /// How much loading a node takes on.
    struct Limits: Sendable {
        /// Loads running at once.
        var lanes = 4
        /// Loads waiting or running at once (distinct sessions); beyond, requests are turned away.
        var pending = 256
        /// How long an unknown id and token are answered without asking the storage.
        var unknownTTL: Duration = .seconds(5)
        /// Unknown ids and tokens remembered at most (the oldest are forgotten first).
        var unknownCapacity = 10_000
    }

    typealias Waiter = @Sendable (Outcome) -> Void

    private struct Load {
        let id: SessionKey
        let token: SessionKey
        let key: String
    }

    private struct State {
        /// Waiters by session id and token, for the loads pending.
        var waiters: [String: [Waiter]] = [:]
        /// The loads no lane has taken yet, in arrival order (`head` is the next).
        var queue: [Load] = []
        var head = 0
        /// Lanes that have no load.
        var idleLanes: [Int]
        /// Ids and tokens found unknown, until when (monotonic nanoseconds), and in the order they were found.
        var unknown: [String: Int64] = [:]
        var unknownOrder: [(key: String, until: Int64)] = []
        var unknownHead = 0

        mutating func next() -> Load? {
            guard head < queue.count else { return nil }
            defer {
                head += 1
                if head == queue.count {
                    queue.removeAll(keepingCapacity: true)
                    head = 0
                }
            }
            return queue[head]
        }

        mutating func rememberUnknown(_ key: String, until: Int64, now: Int64, capacity: Int) {
            while unknownHead < unknownOrder.count,
                unknownOrder[unknownHead].until <= now || unknown.count >= capacity
            {
                let oldest = unknownOrder[unknownHead]
                if unknown[oldest.key] == oldest.until { unknown[oldest.key] = nil }
                unknownHead += 1
            }
            if unknownHead > 1_024, unknownHead * 2 > unknownOrder.count {
                unknownOrder.removeFirst(unknownHead)
                unknownHead = 0
            }
            unknown[key] = until
            unknownOrder.append((key, until))
        }
    }

    private let durability: any SessionPersistence
    private let sessions: SessionRegistry
    private let idempotencyLimit: Int
    private let limits: Limits
    private let logger: Logger
    private let state: Mutex<State>
    private let lanes: [DispatchQueue]
    /// The wall clock stored expiries are compared with.
    private let now: @Sendable () -> Date

    init(
        durability: any SessionPersistence, sessions: SessionRegistry, idempotencyLimit: Int, limits: Limits = Limits(),
        logger: Logger, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.now = now
        self.durability = durability
        self.sessions = sessions
        self.idempotencyLimit = idempotencyLimit
        var limits = limits
        limits.lanes = max(limits.lanes, 1)
        limits.pending = max(limits.pending, 1)
        self.limits = limits
        self.logger = logger
        state = Mutex(State(idleLanes: Array((0..<limits.lanes).reversed())))
        lanes = (0..<limits.lanes).map { DispatchQueue(label: "remvvm.session-loader.\($0)") }
    }

    /// How many requests wait for a load (tests).
    var waiting: Int { state.withLock { $0.waiters.values.reduce(0) { $0 + $1.count } } }

    /// Finds the session `id` for `token`, loading it if this node does not hold it; `waiter` gets the
    /// outcome, at once or later on a loader's lane.
    func load(id: SessionKey, token: SessionKey, _ waiter: @escaping Waiter) {
        let key = id.hexDigits + ":" + token.hexDigits
        let now = MonotonicClock.nanoseconds()
        enum Next { case now(Outcome), joined, start(Int?) }
        // Looked up again under the lock that a finished load releases its waiters under: a load that
        // just put the session in service is seen here, never loaded a second time.
        let next = state.withLock { state -> Next in
            if let session = sessions.find(id: id, token: token) { return .now(.loaded(session)) }
            if let until = state.unknown[key], until > now { return .now(.unknown) }
            if state.waiters[key] != nil {
                state.waiters[key]?.append(waiter)
                return .joined
            }
            guard state.waiters.count < limits.pending else { return .now(.busy) }
            state.waiters[key] = [waiter]
            state.queue.append(Load(id: id, token: token, key: key))
            return .start(state.idleLanes.popLast())
        }
        switch next {
        case .now(let outcome): waiter(outcome)
        case .joined, .start(nil): break
        case .start(let lane?): lanes[lane].async { [self] in run(lane: lane) }
        }
    }

    /// Takes loads off the queue until it is empty, then marks the lane idle.
    private func run(lane: Int) {
        while true {
            let load = state.withLock { state -> Load? in
                guard let load = state.next() else {
                    state.idleLanes.append(lane)
                    return nil
                }
                return load
            }
            guard let load else { return }
            finish(load.key, self.load(id: load.id.hexDigits, token: load.token.hexDigits))
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

    /// Puts a loaded session in service (or remembers an unknown one), then releases the load's waiters and resumes
    /// the app's effects.
    private func finish(_ key: String, _ result: (outcome: Outcome, resume: (@Sendable () -> Void)?)) {
        let now = MonotonicClock.nanoseconds()
        let ttl = Self.nanoseconds(limits.unknownTTL)
        let waiters = state.withLock { state -> [Waiter] in
            switch result.outcome {
            case .loaded(let session): sessions.adopt(session)
            case .unknown where ttl > 0:
                state.rememberUnknown(key, until: now + ttl, now: now, capacity: limits.unknownCapacity)
            default: break
            }
            return state.waiters.removeValue(forKey: key) ?? []
        }
        result.resume?()
        for waiter in waiters { waiter(result.outcome) }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
