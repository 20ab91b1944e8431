public import Foundation
import ReMVVMJSON

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// A session on a ReMVVM server, seen from an app: typed actions in, typed views out, live, offline-tolerant and
/// optimistic.
///
/// ```swift
/// let store = try RemoteStore(url: serverURL, sessionStore: FileSessionStore(url: sessionFile))
/// try await store.connect()
/// let outcome = try await store.send(CounterAction.Increase())
/// for try await view in await store.follow("counter", as: CounterView.self) { print(view.count) }
/// ```
///
/// Every action goes through an outbox with its own `Idempotency-Key`, delivered one at a time in order, retried
/// (with backoff and jitter, or after `Retry-After`) while the server cannot be reached, and kept in a file when
/// ``Configuration/outboxURL`` is set, so it survives the process; the key makes each apply exactly once. The
/// views follow the session by event stream (or long-poll) from the replica's cursor, so a lost connection, a
/// restarted server or a move to another node resumes with the changes missed, not a reset.
///
/// The store owns two tasks (delivery and following) from ``connect()`` until ``close()``; call ``close()`` when
/// done with it, as the tasks keep it alive.
public actor RemoteStore {
    /// How the client hears of changes.
    public enum ChangeFeed: Sendable, Hashable {
        /// One Server-Sent Events stream: a change arrives as soon as it is committed, on one open connection.
        case eventStream
        /// Long-polls, one after the other: for networks and proxies that buffer or cut streams.
        case longPoll

        /// The event stream, with Apple's Foundation and with FoundationNetworking (Linux) alike: one connection,
        /// a change as soon as it is committed. Measured on Linux with `bench/client.sh`, it was faster and cheaper
        /// than long-poll (send to the follower's view p50 1.5 ms against 1.8 ms; the follower's CPU per applied
        /// patch 94 µs against 611 µs), and idle it costs nothing. On Linux that needs a keep-alive connection to the server
        /// (or its proxy): a stream or a long-poll waiting on a connection of its own keeps a thread busy in
        /// FoundationNetworking, which the client avoids by a short request first (EventStream.swift says why).
        public static var platformDefault: ChangeFeed { .eventStream }
    }

    /// How the client behaves; the defaults suit an app.
    public struct Configuration: Sendable {
        /// Where queued actions are kept (a JSON file replaced atomically); nil keeps them in memory only. One
        /// store at a time per file.
        public var outboxURL: URL?
        /// Waits between retries.
        public var retry: RetryPolicy
        /// How long one long-poll waits for a change before the server answers "nothing yet".
        public var pollWait: Duration
        /// How long a request other than a long-poll may take before it counts as a lost connection.
        public var requestTimeout: Duration
        /// Whether ``connect()`` starts following the session's changes. Without it, views change only with the
        /// dispatch answers of this client's own actions.
        public var followsChanges: Bool
        /// How many times ``connect()`` tries to create a session while the server is unreachable or busy.
        public var connectAttempts: Int
        /// Event stream or long-poll.
        public var changeFeed: ChangeFeed

        /// The defaults: no outbox file, following by ``ChangeFeed/platformDefault``, 25 s long-polls, 15 s
        /// requests, 8 connection attempts.
        public init(
            outboxURL: URL? = nil, retry: RetryPolicy = RetryPolicy(), pollWait: Duration = .seconds(25),
            requestTimeout: Duration = .seconds(15), followsChanges: Bool = true, connectAttempts: Int = 8,
            changeFeed: ChangeFeed = .platformDefault
        ) {
            self.changeFeed = changeFeed
            self.outboxURL = outboxURL
            self.retry = retry
            self.pollWait = pollWait
            self.requestTimeout = requestTimeout
            self.followsChanges = followsChanges
            self.connectAttempts = connectAttempts
        }
    }

    /// A view follower: how to hand it a new value.
    struct Follower {
        let view: String
        var last: JSONValue?
        /// Decodes and yields the value; false once the consumer is gone.
        let deliver: @Sendable (JSONValue) -> Bool
        let finish: @Sendable ((any Error)?) -> Void
    }

    let transport: Transport
    let sessionStore: any SessionStore
    let configuration: Configuration
    let outboxFile: OutboxFile?

    /// The session this store talks to, once known.
    public private(set) var session: StoredSession?
    var replica = Replica()
    var outbox: [OutboxEntry]
    var waiters: [String: CheckedContinuation<ActionOutcome, any Error>] = [:]
    var predictions: [Prediction] = []
    var followers: [UUID: Follower] = [:]
    var outboxListeners: [UUID: AsyncStream<OutboxEvent>.Continuation] = [:]
    var syncListeners: [UUID: AsyncStream<SyncEvent>.Continuation] = [:]
    var deliveryTask: Task<Void, Never>?
    var syncTask: Task<Void, Never>?
    /// Wakes the delivery loop when an action is queued.
    let work: (stream: AsyncStream<Void>, continuation: AsyncStream<Void>.Continuation)

    /// A store for the server at `url` (its root, as in `http://127.0.0.1:8080/`), keeping its session in
    /// `sessionStore`. Reads the outbox file, if configured: actions a previous process queued are sent once
    /// ``connect()`` runs.
    public init(
        url: URL, sessionStore: any SessionStore = MemorySessionStore(), configuration: Configuration = Configuration(),
        urlSession: URLSession? = nil
    ) throws {
        let session =
            urlSession
            ?? {
                let settings = URLSessionConfiguration.ephemeral
                settings.httpMaximumConnectionsPerHost = 4
                settings.requestCachePolicy = .reloadIgnoringLocalCacheData
                return URLSession(configuration: settings)
            }()
        transport = Transport(baseURL: url, urlSession: session)
        self.sessionStore = sessionStore
        self.configuration = configuration
        outboxFile = configuration.outboxURL.map(OutboxFile.init(url:))
        outbox = try outboxFile?.load() ?? []
        work = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The version the client's views are at, if it has any.
    public var version: StoreVersion? { replica.version }

    /// How many actions wait in the outbox.
    public var pendingActions: Int { outbox.count }

    /// Resumes the stored session (or creates one when there is none), then starts delivering queued actions and
    /// following changes.
    ///
    /// With a stored session nothing is asked of the server here, so an app offline at launch still queues its
    /// actions. Creating a session retries a busy or unreachable server ``Configuration/connectAttempts`` times.
    public func connect() async throws(ClientError) {
        if session == nil { session = try? sessionStore.load() }
        if session == nil { try await createSession() }
        if deliveryTask == nil {
            deliveryTask = Task { await self.deliverOutbox() }
        }
        if configuration.followsChanges, syncTask == nil {
            syncTask = Task { await self.followChanges() }
        }
    }

    /// Stops delivering and following. Queued actions stay in the outbox (and its file) for the next store;
    /// their waiting `send` calls end with `CancellationError`, followers and event streams finish.
    ///
    /// A request already on the wire is not cut (FoundationNetworking traps when a cancel races an answer): a
    /// parked long-poll ends by its wait, and a dispatch answered meanwhile still takes its action off the outbox.
    public func close() {
        deliveryTask?.cancel()
        syncTask?.cancel()
        deliveryTask = nil
        syncTask = nil
        for waiter in waiters.values { waiter.resume(throwing: CancellationError()) }
        waiters = [:]
        for follower in followers.values { follower.finish(nil) }
        followers = [:]
        for listener in outboxListeners.values { listener.finish() }
        outboxListeners = [:]
        for listener in syncListeners.values { listener.finish() }
        syncListeners = [:]
    }

    /// What happens to queued actions from now on: each delivery or refusal, whether or not a `send` waits on it.
    public func outboxEvents() -> AsyncStream<OutboxEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: OutboxEvent.self)
        outboxListeners[UUID()] = continuation
        return stream
    }

    /// How the client's views follow the session from now on: snapshots, changes, resets, retries.
    public func syncEvents() -> AsyncStream<SyncEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncEvent.self)
        syncListeners[UUID()] = continuation
        return stream
    }

    /// Creates a session and stores it; its views become the replica.
    private func createSession() async throws(ClientError) {
        var attempt = 0
        while true {
            do throws(ClientError) {
                let answer = try await transport.send("POST", "/v1/sessions", timeout: configuration.requestTimeout)
                let object = try WireAnswer.object(answer.body)
                guard case .string(let id)? = object["id"], case .string(let token)? = object["token"] else {
                    throw ClientError(.invalidAnswer, detail: "the created session has no id or token")
                }
                let created = StoredSession(id: id, token: token)
                try? sessionStore.save(created)
                session = created
                replica.applySnapshot(
                    version: try WireAnswer.version(object["version"], "version"),
                    views: try WireAnswer.views(object["views"]))
                if let version = replica.version { emit(.snapshot(version)) }
                return
            } catch {
                attempt += 1
                guard error.isRetryable, attempt < configuration.connectAttempts, !Task.isCancelled else { throw error }
                emit(.retrying(error))
                try? await Task.sleep(
                    for: configuration.retry.delay(attempt: attempt - 1, retryAfter: error.retryAfter))
            }
        }
    }

    /// The path of the session, or of one of its routes.
    func path(_ session: StoredSession, _ suffix: String = "") -> String {
        let id = session.id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? ""
        return "/v1/sessions/\(id)\(suffix)"
    }

    /// The session, or the error that there is none yet.
    func requireSession() throws(ClientError) -> StoredSession {
        guard let session else {
            throw ClientError(.sessionNotFound, detail: "no session: call connect() first")
        }
        return session
    }

    func emit(_ event: SyncEvent) {
        for listener in syncListeners.values { listener.yield(event) }
    }

    func emit(_ event: OutboxEvent) {
        for listener in outboxListeners.values { listener.yield(event) }
    }

    /// The session is gone for good: forget it, refuse what is queued for it, end following, tell listeners.
    func sessionEnded(_ error: ClientError) {
        try? sessionStore.clear()
        session = nil
        let refused = outbox
        outbox = []
        try? outboxFile?.save(outbox)
        predictions = []
        for entry in refused {
            waiters.removeValue(forKey: entry.key)?.resume(throwing: error)
            emit(.failed(key: entry.key, type: entry.type, error: error))
        }
        emit(.sessionEnded(error))
        for follower in followers.values { follower.finish(error) }
        followers = [:]
        // Following ends with the session; connect() starts it again for the next one.
        syncTask?.cancel()
        syncTask = nil
    }
}
