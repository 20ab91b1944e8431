import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import Synchronization

extension API {
    /// `GET /v1/sessions/{id}/poll`: parks until a watched view differs from `since`, or the wait ends.
    ///
    /// Every answer is built from the views' history at answer time, so a change that lands
    /// while a timeout fires is reported, never skipped.
    func poll(_ session: Session, _ exchange: Exchange) {
        let request = exchange.request
        guard request.method == "GET" || request.method == "HEAD" else {
            exchange.send(.methodNotAllowed(request.method, allowed: ["GET"]))
            return
        }
        let views: ViewSet
        let wait: Duration
        let since: Cursor?
        let form: ChangeFeed.Form
        do {
            views = try request.viewSelection(of: session.store)
            wait = try pollWait(request)
            since = try Self.cursor(request.queryValue("since"), name: "since")
            form = try Self.form(request)
        } catch {
            exchange.send(error)
            return
        }
        let poll = LongPoll(
            api: self, session: session, exchange: exchange.parked,
            feed: ChangeFeed(session: session, views: views, form: form, maxViewBytes: configuration.maxViewBytes),
            since: since)
        guard let since, since.epoch == session.epoch, since.number <= session.store.version else {
            poll.answer()
            return
        }
        guard session.parkedPolls.add(1, ordering: .relaxed).newValue <= configuration.maxPollsPerSession else {
            session.parkedPolls.subtract(1, ordering: .relaxed)
            metrics.refused(.pollsPerSession)
            exchange.send(.tooManyRequests("at most \(configuration.maxPollsPerSession) long-polls per session"))
            return
        }
        // Each closure captures the poll alone, which then serves as its context: no allocation per closure.
        exchange.responder.onTermination { [poll] in poll.requestEnded() }
        let registration = session.store.waitForChange(after: since.number, views: views) { [poll] change in
            poll.viewsChanged(change)
        }
        switch registration {
        case .ready(let change):
            // Changed, or deleted between the lookup and here: answered as a poll parked when it happened.
            poll.viewsChanged(change)
        case .parked(let token):
            let timeout = timer.schedule(after: wait + Self.jitter(wait, seed: exchange.started)) { [poll] in
                poll.timedOut()
            }
            poll.park(token: token, timeout: timeout)
        }
    }

    private func pollWait(_ request: HTTPRequest) throws(Problem) -> Duration {
        guard let text = request.queryValue("wait") else {
            return min(configuration.defaultPollWait, configuration.maxPollWait)
        }
        let wait: Duration?
        if text.hasSuffix("ms"), let millis = Int64(text.dropLast(2)) {
            wait = .milliseconds(millis)
        } else if let seconds = Int64(text.hasSuffix("s") ? String(text.dropLast()) : text) {
            wait = .seconds(seconds)
        } else {
            wait = nil
        }
        guard let wait, wait >= .zero else {
            throw .badRequest("wait must be a duration such as 30s or 500ms, not '\(text)'", slug: "bad-wait")
        }
        return min(wait, configuration.maxPollWait)
    }

    /// Parses an optional cursor parameter; a malformed one is a 400.
    static func cursor(_ text: String?, name: String) throws(Problem) -> Cursor? {
        guard let text, !text.isEmpty else { return nil }
        guard let cursor = Cursor(parsing: text) else {
            throw .badRequest("\(name) must be a version as returned by the server, not '\(text)'", slug: "bad-cursor")
        }
        return cursor
    }

    private static func form(_ request: HTTPRequest) throws(Problem) -> ChangeFeed.Form {
        switch request.queryValue("format") {
        case nil, "patch": return .patch
        case "full": return .full
        case let other?: throw .badRequest("format must be patch or full, not '\(other)'", slug: "bad-format")
        }
    }

    /// Up to a tenth of the wait (at most one second), so parked clients do not all wake together.
    ///
    /// Spread needs no secrecy: `seed` (the request's arrival, in clock nanoseconds) mixed, instead of the
    /// system generator, which costs a `getrandom` system call per poll.
    private static func jitter(_ wait: Duration, seed: Int64) -> Duration {
        let millis = UInt64(max(0, min(MonotonicClock.nanoseconds(of: wait) / 10, 1_000_000_000)) / 1_000_000)
        guard millis > 0 else { return .zero }
        return .milliseconds(Int64(mixed(UInt64(bitPattern: seed)) % (millis + 1)))
    }

    /// SplitMix64's finalizer: nearby inputs (successive clock readings) give unrelated outputs.
    private static func mixed(_ value: UInt64) -> UInt64 {
        var bits = value &+ 0x9E37_79B9_7F4A_7C15
        bits = (bits ^ (bits >> 30)) &* 0xBF58_476D_1CE4_E5B9
        bits = (bits ^ (bits >> 27)) &* 0x94D0_49BB_1331_11EB
        return bits ^ (bits >> 31)
    }
}

/// One long-poll from its request to its answer: what it answers with, and which of a change, its timeout or
/// the client leaving claims it first (exactly one does).
///
/// One object holds everything the poll's callbacks need, so each of them (the store's waiter, the timeout,
/// the request's end) captures this object alone instead of a copy of the exchange and the feed.
final class LongPoll: Sendable {
    private struct State {
        var token: WaiterToken?
        var timeout: UInt64?
        var claimed = false
    }

    private let api: API
    private let session: Session
    private let exchange: ParkedExchange
    private let feed: ChangeFeed
    private let since: Cursor?
    private let state = Mutex(State())

    init(api: API, session: Session, exchange: ParkedExchange, feed: ChangeFeed, since: Cursor?) {
        self.api = api
        self.session = session
        self.exchange = exchange
        self.feed = feed
        self.since = since
    }

    /// Answers with the changes from `since` to now, read from the views' history at answer time, so a change
    /// that lands while a timeout fires is reported, never skipped.
    func answer() {
        do {
            // The header names the version the body brings the client to, even if a dispatch lands meanwhile.
            let answer = try feed.answer(since: since)
            let response = answer.response
            // With durability, a version is shown only once it is on disk: a crash never takes it back.
            api.whenStored(answer.to, of: session) { [exchange] problem in
                if let problem { exchange.send(problem) } else { exchange.sendPrepared(response) }
            }
        } catch {
            exchange.send(error)
        }
    }

    /// Records where the poll is parked; if it was already claimed, undoes the parking.
    func park(token: WaiterToken, timeout: UInt64) {
        let claimed = state.withLock { state in
            state.token = token
            state.timeout = timeout
            return state.claimed
        }
        if claimed {
            api.timer.cancel(timeout)
            session.store.cancelWait(token)
        }
    }

    /// A watched view changed (or the session closed): claims the answer and cancels the timeout.
    func viewsChanged(_ change: StoreChange) {
        let (won, timeout) = state.withLock { state -> (Bool, UInt64?) in
            guard !state.claimed else { return (false, nil) }
            state.claimed = true
            return (true, state.timeout)
        }
        if let timeout { api.timer.cancel(timeout) }
        guard won else { return }
        if case .closed = change {
            // Taken over by another node: let go at once with the client's own cursor, so it polls again and
            // reaches the new owner; else the session was deleted.
            if session.hasMoved, let since {
                exchange.sendPrepared(ChangeFeed.unchanged(since: since).response)
            } else {
                exchange.send(.sessionNotFound)
            }
        } else {
            answer()
        }
    }

    /// The wait ended: claims the answer and removes the store's waiter.
    func timedOut() {
        let (won, token) = state.withLock { state -> (Bool, WaiterToken?) in
            guard !state.claimed else { return (false, nil) }
            state.claimed = true
            return (true, state.token)
        }
        if let token { session.store.cancelWait(token) }
        if won { answer() }
    }

    /// The request ended (answered or the client left): releases the waiter and the timeout.
    func requestEnded() {
        session.touch()  // Released with the count: whoever sees it drop sees this use.
        session.parkedPolls.subtract(1, ordering: .releasing)
        let (token, timeout) = state.withLock { state -> (WaiterToken?, UInt64?) in
            // Whoever claimed it first already let go of the rest (`viewsChanged`, `timedOut`, `park`): a
            // waiter the dispatch woke is out of the store, and its timeout was cancelled. Answered polls
            // thus end without taking the store's and the timer's locks again.
            guard !state.claimed else { return (nil, nil) }
            state.claimed = true
            return (state.token, state.timeout)
        }
        if let token { session.store.cancelWait(token) }
        if let timeout { api.timer.cancel(timeout) }
    }
}
