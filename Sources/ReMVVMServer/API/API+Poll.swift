import MicroHTTP
import ReMVVM
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
        let feed = ChangeFeed(session: session, views: views, form: form)
        let respond: @Sendable () -> Void = { [self] in
            do {
                // The header names the version the body brings the client to, even if a dispatch lands meanwhile.
                let answer = try feed.answer(since: since)
                guard durability != nil else {
                    exchange.sendPrepared(answer.response)
                    return
                }
                // With durability, a version is shown only once it is on disk: a crash never takes it back.
                whenDurable(answer.response) { exchange.sendPrepared($0) }
            } catch {
                exchange.send(.internalError("\(error)"))
            }
        }
        guard let since, since.epoch == session.epoch, since.number <= session.store.version else {
            respond()
            return
        }
        guard session.parkedPolls.add(1, ordering: .relaxed).newValue <= configuration.maxPollsPerSession else {
            session.parkedPolls.subtract(1, ordering: .relaxed)
            exchange.send(.tooManyRequests("at most \(configuration.maxPollsPerSession) long-polls per session"))
            return
        }
        let parking = ParkedPoll()
        exchange.responder.onTermination {
            session.parkedPolls.subtract(1, ordering: .relaxed)
            parking.end(store: session.store, timer: self.timer)
        }
        let registration = session.store.waitForChange(after: since.number, views: views) { [self] change in
            guard parking.claim(timer: timer) else { return }
            if case .closed = change {
                exchange.send(.sessionNotFound)
            } else {
                respond()
            }
        }
        switch registration {
        case .ready(.closed):
            // Deleted between the lookup and here: the same answer as a poll parked when it happened.
            if parking.claim(timer: timer) { exchange.send(.sessionNotFound) }
        case .ready:
            if parking.claim(timer: timer) { respond() }
        case .parked(let token):
            let timeout = timer.schedule(after: wait + Self.jitter(wait, seed: exchange.started)) {
                guard parking.claimForTimeout(store: session.store) else { return }
                respond()
            }
            parking.park(token: token, timeout: timeout, store: session.store, timer: timer)
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

/// The lifecycle of one parked long-poll: exactly one of change, timeout or client-gone wins.
final class ParkedPoll: Sendable {
    private struct State {
        var token: WaiterToken?
        var timeout: UInt64?
        var claimed = false
    }

    private let state = Mutex(State())

    /// Records where the poll is parked; if it was already claimed, undoes the parking.
    func park(token: WaiterToken, timeout: UInt64, store: any ProjectedStore, timer: DeadlineTimer) {
        let claimed = state.withLock { state in
            state.token = token
            state.timeout = timeout
            return state.claimed
        }
        if claimed {
            timer.cancel(timeout)
            store.cancelWait(token)
        }
    }

    /// Claims the answer for a change; cancels the timeout.
    func claim(timer: DeadlineTimer) -> Bool {
        let (won, timeout) = state.withLock { state -> (Bool, UInt64?) in
            guard !state.claimed else { return (false, nil) }
            state.claimed = true
            return (true, state.timeout)
        }
        if let timeout { timer.cancel(timeout) }
        return won
    }

    /// Claims the answer for a timeout; removes the store waiter.
    func claimForTimeout(store: any ProjectedStore) -> Bool {
        let (won, token) = state.withLock { state -> (Bool, WaiterToken?) in
            guard !state.claimed else { return (false, nil) }
            state.claimed = true
            return (true, state.token)
        }
        if let token { store.cancelWait(token) }
        return won
    }

    /// The request ended (answered or the client left): release the waiter and the timeout.
    func end(store: any ProjectedStore, timer: DeadlineTimer) {
        let (token, timeout) = state.withLock { state -> (WaiterToken?, UInt64?) in
            // Whoever claimed it first already let go of the rest (`claim`, `claimForTimeout`, `park`): a
            // waiter the dispatch woke is out of the store, and its timeout was cancelled. Answered polls
            // thus end without taking the store's and the timer's locks again.
            guard !state.claimed else { return (nil, nil) }
            state.claimed = true
            return (state.token, state.timeout)
        }
        if let token { store.cancelWait(token) }
        if let timeout { timer.cancel(timeout) }
    }
}
