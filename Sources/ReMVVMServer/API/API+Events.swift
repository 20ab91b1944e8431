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
        guard let session = sessions.find(id: id, token: Credentials(request)?.token) else {
            exchange.send(HTTPResponse(status: 204))
            return
        }
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
        // With durability, the first event's version is shown only once it is on disk.
        guard let durability else {
            exchange.send(response)
            return
        }
        durability.whenDurable { _ in exchange.send(response) }
    }
}
