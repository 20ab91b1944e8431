import Foundation
import ReMVVMJSON

extension RemoteStore {
    /// Reads view `name` from the server now, decoded as `View`.
    public func view<View: Decodable>(_ name: String, as type: View.Type) async throws -> View {
        let session = try requireSession()
        let answer = try await transport.send(
            "GET", path(session), query: [URLQueryItem(name: "views", value: name)], token: session.token,
            timeout: configuration.requestTimeout)
        guard let json = try WireAnswer.views(WireAnswer.object(answer.body)["views"])[name] else {
            throw ClientError(.invalidAnswer, detail: "the answer has no view '\(name)'")
        }
        return try decode(json, as: type)
    }

    /// View `name` as the client shows it now: the server's latest view it holds, with pending predictions
    /// applied. Nil before the first snapshot, or for a view the server does not have.
    public func currentView<View: Decodable>(_ name: String, as type: View.Type) throws -> View? {
        try displayedView(name).map { try decode($0, as: type) }
    }

    /// View `name` as it changes: its current value first (once the client has one), then each new value.
    ///
    /// Values include predictions. The sequence finishes when the store is closed, and throws when the session
    /// ends or a view does not decode as `View`.
    public func follow<View: Decodable & Sendable>(
        _ name: String, as type: View.Type
    ) -> AsyncThrowingStream<View, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: View.self, throwing: (any Error).self)
        var follower = Follower(
            view: name, last: nil,
            deliver: { json in
                do {
                    let value = try json.decoded(as: View.self)
                    if case .terminated = continuation.yield(value) { return false }
                    return true
                } catch {
                    continuation.finish(throwing: ClientError(.decoding, detail: "view '\(name)': \(error)"))
                    return false
                }
            },
            finish: { error in continuation.finish(throwing: error) })
        if let json = displayedView(name) {
            guard follower.deliver(json) else { return stream }
            follower.last = json
        }
        followers[UUID()] = follower
        return stream
    }

    /// The server's view `name` with the pending predictions for it applied in order.
    func displayedView(_ name: String) -> JSONValue? {
        guard var json = replica.views[name] else { return nil }
        for prediction in predictions where prediction.view == name {
            if let predicted = prediction.change(json) { json = predicted }
        }
        return json
    }

    /// Hands each follower its view if it changed since it last got it.
    func publishViews() {
        for (id, follower) in followers {
            guard let json = displayedView(follower.view), json != follower.last else { continue }
            if follower.deliver(json) {
                followers[id]?.last = json
            } else {
                followers.removeValue(forKey: id)
            }
        }
    }

    private func decode<View: Decodable>(_ json: JSONValue, as type: View.Type) throws -> View {
        do {
            return try json.decoded(as: type)
        } catch {
            throw ClientError(.decoding, detail: "\(type): \(error)")
        }
    }

    /// Follows the session from the replica's version until cancelled or the session ends.
    ///
    /// A lost connection is retried from the same cursor, so after a network loss or a server restart the client
    /// gets the changes it missed as a change; the views are fetched whole only when the server cannot continue
    /// (a reset) or a change does not fit.
    func followChanges() async {
        var attempt = 0
        var needsSnapshot = false
        var moves = MoveBackoff()
        var reconnecting = false
        while !Task.isCancelled, let session {
            do throws(ClientError) {
                var moved = false
                switch configuration.changeFeed {
                case .eventStream:
                    moved = try await readEventStream(session, attempt: &attempt)
                case .longPoll:
                    if needsSnapshot || replica.version == nil {
                        try await readSnapshot(session)
                        needsSnapshot = false
                    } else if reconnecting {
                        await transport.warmUp(timeout: configuration.requestTimeout)
                    }
                    reconnecting = false
                    let started = ContinuousClock.now
                    let outcome = try await pollOnce(session)
                    needsSnapshot = outcome == .stale
                    // A poll let go early with no change: its node gave the session up (moved, or stopping).
                    moved = outcome == .nowhere && ContinuousClock.now - started < configuration.pollWait / 2
                    attempt = 0
                }
                if moved, let delay = moves.moved(at: .now, window: MoveBackoff.window(for: configuration.retry)) {
                    try? await Task.sleep(for: configuration.retry.delay(attempt: delay))
                }
            } catch {
                guard !Task.isCancelled else { return }
                guard error.isRetryable else {
                    if error.kind == .sessionNotFound {
                        sessionEnded(error)
                    } else {
                        // 401, 403 or a broken answer: retrying would get the same. Stop and say why.
                        emit(.sessionEnded(error))
                        for follower in followers.values { follower.finish(error) }
                        followers = [:]
                    }
                    return
                }
                emit(.retrying(error))
                try? await Task.sleep(for: configuration.retry.delay(attempt: attempt, retryAfter: error.retryAfter))
                attempt += 1
                reconnecting = true
            }
        }
    }

    /// Replaces the replica with the session's views as they are now.
    private func readSnapshot(_ session: StoredSession) async throws(ClientError) {
        let answer = try await transport.send(
            "GET", path(session), token: session.token, timeout: configuration.requestTimeout)
        let object = try WireAnswer.object(answer.body)
        let version = try WireAnswer.version(object["version"], "version")
        replica.applySnapshot(version: version, views: try WireAnswer.views(object["views"]))
        emit(.snapshot(version))
        viewsChanged()
    }

    /// One long-poll from the replica's version.
    private func pollOnce(_ session: StoredSession) async throws(ClientError) -> ChangeOutcome {
        guard let since = replica.version else { return .stale }
        let answer = try await transport.send(
            "GET", path(session, "/poll"),
            query: [
                URLQueryItem(name: "since", value: since.rawValue),
                URLQueryItem(name: "wait", value: "\(configuration.pollWait.components.seconds)s"),
            ],
            token: session.token, timeout: configuration.pollWait + .seconds(15))
        return try apply(changes: WireAnswer.object(answer.body))
    }

    /// Reads one event stream from the replica's version until it ends; returns when the server moved the session
    /// (true) or a change did not fit (false), throws when the connection was lost or refused.
    private func readEventStream(_ session: StoredSession, attempt: inout Int) async throws(ClientError) -> Bool {
        var query: [URLQueryItem] = []
        if let version = replica.version { query.append(URLQueryItem(name: "since", value: version.rawValue)) }
        // Heartbeats come every 15 s: a quiet minute means the connection is gone.
        let request = try transport.request(
            "GET", path(session, "/events"), query: query, token: session.token,
            headers: ["Accept": "text/event-stream"], timeout: .seconds(60))
        let warmUp = try transport.request("HEAD", "/healthz", timeout: configuration.requestTimeout)
        do {
            for try await event in EventStream.open(request, warmUp: warmUp) {
                attempt = 0
                switch try await handle(event, of: session) {
                case .read: continue
                case .moved: return true
                case .stale: return false
                }
            }
        } catch let error as ClientError {
            throw error
        } catch {
            throw ClientError(.unreachable, detail: "\(error)")
        }
        throw ClientError(.unreachable, detail: "the event stream closed")
    }

    /// What one event asks of the stream.
    private enum EventOutcome {
        /// Read on.
        case read
        /// Another node took the session over: reconnect.
        case moved
        /// A change did not fit and the views were read whole: reconnect from their version.
        case stale
    }

    /// Applies one event.
    private func handle(_ event: ServerSentEvent, of session: StoredSession) async throws(ClientError) -> EventOutcome {
        let object = try WireAnswer.object(Data(event.data.utf8))
        switch event.event {
        case "snapshot":
            let version = try WireAnswer.version(object["version"], "version")
            replica.applySnapshot(version: version, views: try WireAnswer.views(object["views"]))
            emit(.snapshot(version))
            viewsChanged()
        case "patch", "reset":
            if try apply(changes: object) == .stale {
                try await readSnapshot(session)
                return .stale
            }
        case "end":
            switch object["reason"] {
            case .string("moved")?:
                // Another node took the session over: reconnecting to the same URL (a balancer's, which routes
                // the session to its owner) reaches it, and the cursor continues there.
                emit(.moved)
                return .moved
            case .string("deleted")?:
                throw ClientError(.sessionNotFound, detail: "the session was deleted")
            default:
                throw ClientError(.unavailable, detail: "the server ended the stream (\(event.data))")
            }
        default:
            break
        }
        return .read
    }

    /// What a change did to the replica.
    enum ChangeOutcome {
        /// The views moved on, were reset, or held the change already.
        case changed
        /// The answer goes from the replica's version to the same: a poll the server let go with its cursor (its
        /// wait ended, or its node gave the session up).
        case nowhere
        /// The change did not fit: read the views whole.
        case stale
    }

    /// Applies a change or a reset (a poll answer, a `patch` or `reset` event).
    private func apply(changes object: [String: JSONValue]) throws(ClientError) -> ChangeOutcome {
        let to = try WireAnswer.version(object["to"], "to")
        let entries = try WireAnswer.views(object["views"])
        if object["reset"] == .bool(true) {
            replica.applyReset(to: to, entries: entries)
            if case .string(let reason)? = object["reason"] {
                emit(.reset(reason: reason, to: to))
            } else {
                emit(.reset(reason: "", to: to))
            }
            viewsChanged()
            return .changed
        }
        var from: StoreVersion?
        if case .string(let text)? = object["from"] { from = StoreVersion(text) }
        switch replica.applyChange(from: from, to: to, entries: entries) {
        case .applied:
            guard let from, from != to || !entries.isEmpty else { return .nowhere }
            if !entries.isEmpty { emit(.change(from: from, to: to)) }
            viewsChanged()
            return .changed
        case .stale:
            return .stale
        case .ignored:
            return .changed
        }
    }

    /// After the replica moved: drop the predictions it now holds, hand followers their new views.
    private func viewsChanged() {
        settlePredictions()
        publishViews()
    }
}
