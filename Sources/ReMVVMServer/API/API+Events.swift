import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMPersistence
import Synchronization

extension API {
    /// The most an event stream buffers for a client that reads slower than its events come.
    static let streamBufferBytes = 4 << 20

    /// The largest first event a stream opens with: three quarters of its buffer, leaving room for the events
    /// after it, so a stream never closes right after its headers. One view at the largest budget
    /// (``ServerConfiguration/maxViewBytesLimit``, half the buffer) always fits.
    static let firstEventLimit = streamBufferBytes / 4 * 3

    /// `GET /v1/sessions/{id}/events`: Server-Sent Events with a `snapshot` (or the patches since
    /// `since` / `Last-Event-ID`), then one `patch` event per change.
    func events(_ id: SessionKey?, _ exchange: Exchange) {
        let request = exchange.request
        guard request.method == "GET" || request.method == "HEAD" else {
            exchange.send(.methodNotAllowed(request.method, allowed: ["GET"]))
            return
        }
        // A session that is gone (or was never this client's) ends the stream for good:
        // EventSource does not reconnect after a 204 (nor after the 401 of a request with no credentials).
        let credentials = Credentials(request)
        let token = credentials?.token
        if let session = sessions.find(id: id, token: token) {
            authenticated(session, exchange) { api, session, exchange in api.events(session, exchange) }
            return
        }
        guard let loader, let id, let token else {
            if credentials == nil, Credentials.areAbsent(in: request) {
                exchange.send(.missingCredentials())
            } else {
                exchange.send(HTTPResponse(status: 204))
            }
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
            case .busy: exchange.send(Problem.loadingBusy)
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
            metrics.refused(.streamsPerSession)
            exchange.send(.tooManyRequests("at most \(configuration.maxStreamsPerSession) event streams per session"))
            return
        }
        let feed = ChangeFeed(session: session, views: views, form: .patch, maxViewBytes: configuration.maxViewBytes)
        let first: [UInt8]
        let cursor: UInt64
        do throws(Problem) {
            // Written on the byte path, like every later event: O(bytes) on this worker thread.
            if let since {
                let answer = try feed.answer(since: since)
                first = answer.hasChanges ? answer.event : []
                cursor = answer.to
            } else {
                let (body, version) = try feed.currentViews()
                first = ServerSentEvent.bytes(id: session.cursor(version).description, event: "snapshot", data: body)
                cursor = version
            }
            // Each view is within its budget, but several together may not fit the stream's buffer, which would
            // close the stream right after its headers.
            guard first.count <= Self.firstEventLimit else {
                throw Problem(
                    status: Problem.viewTooLargeStatus, slug: "view-too-large", title: "Insufficient Storage",
                    detail:
                        "the first event of these views is \(first.count) bytes, more than an event stream opens "
                        + "with (\(Self.firstEventLimit)); open one stream per view (views=name)")
            }
        } catch {
            session.openStreams.subtract(1, ordering: .relaxed)
            exchange.send(error)
            return
        }
        let stream = ResponseStream(maxBufferedBytes: Self.streamBufferBytes)
        stream.write(Array("retry: \(2_000 + Int.random(in: 0...1_000))\n\n".utf8))
        if !first.isEmpty { stream.write(first) }
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
