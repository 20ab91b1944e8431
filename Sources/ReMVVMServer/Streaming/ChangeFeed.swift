import MicroHTTP
import ReMVVM

/// Builds what a long-poll answers and an event stream sends: the changes of some views from
/// a client's cursor to now, as patches or full views, or a reset when the cursor is unusable.
///
/// Answers are cached per (views, from, to, form) in the session, so everyone woken by the
/// same dispatch from the same cursor shares one body.
struct ChangeFeed {
    /// How a client asked for changes.
    enum Form: UInt8 {
        case patch = 0
        case full = 1
    }

    /// Why a cursor could not be continued.
    enum ResetReason: String {
        /// Older than the kept history.
        case expired
        /// From another history of the session.
        case epoch
        /// Ahead of the server.
        case ahead
    }

    /// One answer: its JSON body, the version it brings the client to, and the same answer
    /// ready to send as a long-poll response and as an event, so that ten thousand waiters woken
    /// by one dispatch share them instead of each building its own.
    struct Answer: Sendable {
        let body: [UInt8]
        let to: UInt64
        /// Whether any watched view changed (false for a timeout answer).
        let hasChanges: Bool
        /// Set when the client must replace its views.
        let reset: ResetReason?
        /// The long-poll response, headers included.
        let response: HTTPResponse
        /// The Server-Sent Event (`patch` or `reset`) with the version as its id.
        let event: [UInt8]

        init(body: [UInt8], to: Cursor, hasChanges: Bool, reset: ResetReason?) {
            self.body = body
            self.to = to.number
            self.hasChanges = hasChanges
            self.reset = reset
            var headers = Exchange.apiHeaders
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Store-Version", value: to.description)
            headers.add(name: "ETag", value: to.etag)
            // Shared: the transport builds its libmicrohttpd form once for every waiter it answers.
            response = HTTPResponse(status: 200, headers: headers, body: .bytes(body)).shared()
            event =
                ServerSentEvent(
                    id: to.description, event: reset == nil ? "patch" : "reset",
                    data: String(decoding: body, as: UTF8.self)
                ).bytes
        }
    }

    let session: Session
    let views: ViewSet
    let form: Form

    /// The answer for a client at `since` (nil: the client has nothing yet).
    func answer(since: Cursor?) throws(ViewEncodingError) -> Answer {
        guard let since else { return try snapshot() }
        guard since.epoch == session.epoch else { return try reset(.epoch) }
        // Everyone woken by one dispatch asks for the same answer: look it up before reading any views.
        let current = AnswerCache.Key(
            views: views.bits, from: since.number, to: session.store.version, kind: form.rawValue)
        if let cached = session.answers.cached(current) { return cached }
        let state = session.store.views(views, since: since.number)
        if since.number > state.version { return try reset(.ahead) }
        guard let past = state.past else { return try reset(.expired) }
        let key = AnswerCache.Key(views: views.bits, from: since.number, to: state.version, kind: form.rawValue)
        return try session.answers.answer(key) { () throws(ViewEncodingError) -> Answer in
            var changed = false
            var changes: [String: JSONValue] = [:]
            for (old, new) in zip(past, state.current) where old !== new {
                changed = true
                switch form {
                case .patch: changes[new.name] = .object(["patch": try session.answers.patch(from: old, to: new)])
                case .full: changes[new.name] = .object(["full": try new.json()])
                }
            }
            let to = session.cursor(state.version)
            let body = JSONValue.object([
                "from": .string(since.description), "to": .string(to.description), "views": .object(changes),
            ]).serialized()
            return Answer(body: body, to: to, hasChanges: changed, reset: nil)
        }
    }

    /// The full views at the current version (a client with no cursor).
    func snapshot() throws(ViewEncodingError) -> Answer {
        let (version, snapshots) = session.store.views(views)
        var full: [String: JSONValue] = [:]
        for snapshot in snapshots { full[snapshot.name] = .object(["full": try snapshot.json()]) }
        let body = JSONValue.object([
            "from": .null, "to": .string(session.cursor(version).description), "views": .object(full),
        ]).serialized()
        return Answer(body: body, to: session.cursor(version), hasChanges: true, reset: nil)
    }

    /// `{"version", "views": {name: viewModel}}` at the current version, and that version.
    func currentViews() throws(ViewEncodingError) -> (body: [UInt8], version: UInt64) {
        let (version, snapshots) = session.store.views(views)
        let body = JSONValue.object([
            "version": .string(session.cursor(version).description), "views": try snapshots.viewsObject(),
        ]).serialized()
        return (body, version)
    }

    /// Full views with the reason the client's cursor could not be continued.
    func reset(_ reason: ResetReason) throws(ViewEncodingError) -> Answer {
        let (version, snapshots) = session.store.views(views)
        var full: [String: JSONValue] = [:]
        for snapshot in snapshots { full[snapshot.name] = .object(["full": try snapshot.json()]) }
        let body = JSONValue.object([
            "reset": true, "reason": .string(reason.rawValue),
            "to": .string(session.cursor(version).description), "views": .object(full),
        ]).serialized()
        return Answer(body: body, to: session.cursor(version), hasChanges: true, reset: reason)
    }
}
