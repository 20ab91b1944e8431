import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMPersistence
import Synchronization

extension API {
    /// `GET /v1/sessions/{id}/events`: Server-Sent Events with a `snapshot` (or the patches since
    /// `since` / `Last-Event-ID`), then one `patch` event per change.
    func events(_ id: SessionKey?, _ exchange: Exchange) {
        let request = exchange.request
        guard request.method == "GET" || request.method == "HEAD" else {
            exchange.send(.methodNotAllowed(request.method, allowed: ["GET"]))
            return
        }
        // A session that is gone (or was never this client's) ends the stream for good:
        // EventSource does not reconnect after a 204.
        let token = Credentials(request)?.token
        if let session = sessions.find(id: id, token: token) {
            authenticated(session, exchange) { api, session, exchange in api.events(session, exchange) }
            return
        }
        guard let loader, let id, let token else {
            exchange.send(HTTPResponse(status: 204))
            return
        }
        guard !draining.load(ordering: .relaxed) else {
            exchange.send(.draining)
            return
        }
        // Held by the shared storage, maybe: loaded (the request parks meanwhile), then streamed.
        loader.load(id: id, token: token) { [self] outcome in
            switch outcome {
            case .loaded(let session):
                authenticated(session, exchange) { api, session, exchange in api.events(session, exchange) }
            case .unknown: exchange.send(HTTPResponse(status: 204))
            case .unavailable(let error): exchange.send(Problem.storageUnavailable(error))
            }
        }
    }

    /// The event stream of a session this node holds.
    private func events(_ session: Session, _ exchange: Exchange) {
        let request = exchange.request
        session.touch()
        let views: ViewSet
        let since: Cursor?
        do {
            views = try request.viewSelection(of: session.store)
            // Last-Event-ID wins over `since`, but a malformed `since` is a 400 either way. An empty
            // Last-Event-ID (no event had an id yet) is no cursor, and leaves `since` in force.
            let query = try Self.cursor(request.queryValue("since"), name: "since")
            since = try Self.cursor(request.headers["last-event-id"], name: "Last-Event-ID") ?? query
        } catch {
            exchange.send(error)
            return
        }
        guard session.openStreams.add(1, ordering: .relaxed).newValue <= configuration.maxStreamsPerSession else {
            session.openStreams.subtract(1, ordering: .relaxed)
            exchange.send(.tooManyRequests("at most \(configuration.maxStreamsPerSession) event streams per session"))
            return
        }
        let feed = ChangeFeed(session: session, views: views, form: .patch)
        let stream = ResponseStream()
        stream.write(Array("retry: \(2_000 + Int.random(in: 0...1_000))\n\n".utf8))
        let cursor: UInt64
        do {
            if let since {
                let first = try feed.answer(since: since)
                if first.hasChanges {
                    let event = ServerSentEvent(
                        id: session.cursor(first.to).description, event: first.reset == nil ? "patch" : "reset",
                        data: String(decoding: first.body, as: UTF8.self))
                    stream.write(event.bytes)
                }
                cursor = first.to
            } else {
                let (body, version) = try feed.currentViews()
                let event = ServerSentEvent(
                    id: session.cursor(version).description, event: "snapshot",
                    data: String(decoding: body, as: UTF8.self))
                stream.write(event.bytes)
                cursor = version
            }
        } catch {
            session.openStreams.subtract(1, ordering: .relaxed)
            exchange.send(.internalError("\(error)"))
            return
        }
        streams.add(stream)
        EventSubscription(feed: feed, stream: stream, cursor: cursor, durability: durability).start()
        let response = HTTPResponse(
            status: 200,
            headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no"],
            body: .stream(stream))
        // With durability, the first event's version is shown only once it is on disk (at once when it is).
        whenStored(cursor, of: session) { _ in exchange.send(response) }
    }
}
