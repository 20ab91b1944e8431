import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import Synchronization

/// Builds what a long-poll answers and an event stream sends: the changes of some views from
/// a client's cursor to now, as patches or full views, or a reset when the cursor is unusable.
///
/// Answers are cached per (views, from, to, form) in the session, so everyone woken by the
/// same dispatch from the same cursor shares one body.
struct ChangeFeed {
    /// How a client asked for changes, and how one view's change is written.
    enum Form: UInt8 {
        case patch = 0
        case full = 1

        /// The member a view's change is written under: `{"patch": [...]}` or `{"full": {...}}`.
        var key: StaticString {
            switch self {
            case .patch: "patch"
            case .full: "full"
            }
        }
    }

    /// One view in an answer: its name and its change, as a patch or as the whole view model.
    struct ViewChange {
        let name: String
        let form: Form
        /// The patch or the view model, as JSON.
        let json: [UInt8]
    }

    /// A view whose JSON is at most this long is written whole in a `patch` answer: no patch could be shorter
    /// (the shortest, `[{"op":"remove","path":"/"}]`, has 28 bytes). Whole, it costs the server no diff and the
    /// client nothing to apply, and a small view such as a counter is what changes most often.
    static let wholeViewLimit = 28

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
    ///
    /// The response is built unshared: most answers are sent once (one poll per session), and a shared
    /// one keeps its libmicrohttpd form, body copy and headers, for as long as the answer is cached. The
    /// cache shares it from the second request on (``sharing()``).
    struct Answer: Sendable {
        let body: [UInt8]
        let to: UInt64
        /// `to` as written in the body and the `Store-Version` header.
        let version: String
        /// Whether any watched view changed (false for a timeout answer).
        let hasChanges: Bool
        /// Set when the client must replace its views.
        let reset: ResetReason?
        /// The long-poll response, headers included.
        private(set) var response: HTTPResponse
        /// The Server-Sent Event (`patch` or `reset`) with the version as its id, written only when a stream asks:
        /// a shared answer keeps it for its other readers; an answer read once (one poll or stream per session)
        /// writes it for that reader and allocates nothing to keep it in.
        var event: [UInt8] { sharedEvent?.bytes ?? LazyEvent.bytes(id: version, reset: reset, data: body) }
        private var sharedEvent: LazyEvent?

        /// `version` is the cursor of `to` as written in the body, so it is written once per answer.
        init(body: [UInt8], to: UInt64, version: String, hasChanges: Bool, reset: ResetReason?) {
            self.body = body
            self.to = to
            self.version = version
            self.hasChanges = hasChanges
            self.reset = reset
            response = HTTPResponse(status: 200, headers: API.versionedHeaders(version: version), body: .bytes(body))
        }

        /// Whether the transport builds one libmicrohttpd response for every waiter that sends this answer.
        var isShared: Bool { response.isShared }

        /// The same answer with a shared response: the transport builds its libmicrohttpd form once and queues
        /// it on every connection answered with it (see ``HTTPResponse/shared()``).
        func sharing() -> Answer {
            var shared = self
            shared.response = response.shared()
            shared.sharedEvent = LazyEvent(id: version, reset: reset, data: body)
            return shared
        }
    }

    /// A shared answer's event bytes, made once by whichever stream asks first.
    final class LazyEvent: Sendable {
        private let id: String
        private let reset: ResetReason?
        private let data: [UInt8]
        private let made = Mutex<[UInt8]?>(nil)

        init(id: String, reset: ResetReason?, data: [UInt8]) {
            self.id = id
            self.reset = reset
            self.data = data
        }

        var bytes: [UInt8] {
            made.withLock { made in
                if let made { return made }
                let bytes = Self.bytes(id: id, reset: reset, data: data)
                made = bytes
                return bytes
            }
        }

        /// The event of an answer: `reset` when the client must replace its views, else `patch`.
        static func bytes(id: String, reset: ResetReason?, data: [UInt8]) -> [UInt8] {
            ServerSentEvent.bytes(id: id, event: reset == nil ? "patch" : "reset", data: data)
        }
    }

    let session: Session
    let views: ViewSet
    let form: Form
    /// The most bytes a view's JSON may have (``ServerConfiguration/maxViewBytes``): an answer that would carry a
    /// larger view, whole or as the patch to it, is the problem naming it instead.
    let maxViewBytes: Int

    /// The answer for a client at `since` (nil: the client has nothing yet).
    func answer(since: Cursor?) throws(Problem) -> Answer {
        guard let since else { return try snapshot() }
        guard since.epoch == session.epoch else { return try reset(.epoch) }
        // Everyone woken by one dispatch asks for the same answer: look it up before reading any views.
        let current = AnswerCache.Key(
            views: views.bits, from: since.number, to: session.store.version, kind: form.rawValue)
        if let cached = session.answers.cached(current) { return cached }
        if let index = views.only {
            // One view, as nearly every poll and stream watches: read without the lists of several.
            let state = session.store.view(index, since: since.number)
            return try answer(
                since: since, at: state.version, changed: state.past.map { CollectionOfOne(($0, state.current)) })
        }
        let state = session.store.views(views, since: since.number)
        return try answer(since: since, at: state.version, changed: state.past.map { zip($0, state.current) })
    }

    /// The answer from `since` to `version`, given each watched view's (past, current) snapshots; nil when one of
    /// them is older than the kept history.
    private func answer(
        since: Cursor, at version: UInt64, changed snapshots: (some Sequence<(ViewSnapshot, ViewSnapshot)>)?
    ) throws(Problem) -> Answer {
        if since.number > version { return try reset(.ahead) }
        guard let snapshots else {
            // From before this node loaded the session (another node's, or before a restart): the same
            // history, so a change with every view whole, not a reset.
            if since.number < session.base { return try wholeViews(since: since) }
            return try reset(.expired)
        }
        let key = AnswerCache.Key(views: views.bits, from: since.number, to: version, kind: form.rawValue)
        return try session.answers.answer(key) { () throws(Problem) -> Answer in
            var changes: [ViewChange] = []
            for (old, new) in snapshots where old !== new {
                let whole = try new.budgetedBytes(max: maxViewBytes)
                if form == .full || whole.count <= Self.wholeViewLimit {
                    changes.append(ViewChange(name: new.name, form: .full, json: whole))
                } else {
                    let patch: [UInt8]
                    do throws(ViewEncodingError) {
                        patch = try session.answers.patch(from: old, to: new)
                    } catch {
                        throw .internalError(error.description)
                    }
                    changes.append(ViewChange(name: new.name, form: .patch, json: patch))
                }
            }
            let to = session.cursor(version).description
            let body = Self.body([("from", .string(since.description)), ("to", .string(to))], views: changes)
            return Answer(body: body, to: version, version: to, hasChanges: !changes.isEmpty, reset: nil)
        }
    }

    /// Every view whole, as the change from `since` to the current version: for a cursor of this history older
    /// than the views this node keeps.
    func wholeViews(since: Cursor) throws(Problem) -> Answer {
        let (version, snapshots) = session.store.views(views)
        let to = session.cursor(version).description
        let body = Self.body(
            [("from", .string(since.description)), ("to", .string(to))], views: try full(snapshots))
        return Answer(body: body, to: version, version: to, hasChanges: true, reset: nil)
    }

    /// The answer that brings a client at `since` nowhere: no view changed (a poll let go because its
    /// session moved to another node).
    static func unchanged(since: Cursor) -> Answer {
        let version = since.description
        let body = Self.body([("from", .string(version)), ("to", .string(version))], views: [])
        return Answer(body: body, to: since.number, version: version, hasChanges: false, reset: nil)
    }

    /// The full views at the current version (a client with no cursor).
    func snapshot() throws(Problem) -> Answer {
        let (version, snapshots) = session.store.views(views)
        let to = session.cursor(version).description
        let body = Self.body([("from", .literal("null")), ("to", .string(to))], views: try full(snapshots))
        return Answer(body: body, to: version, version: to, hasChanges: true, reset: nil)
    }

    /// `{"version", "views": {name: viewModel}}` at the current version, and that version: an event stream's
    /// first event, written straight into bytes like every other answer.
    func currentViews() throws(Problem) -> (body: [UInt8], version: UInt64) {
        let (version, snapshots) = session.store.views(views)
        let views = try snapshots.viewsObjectBytes(max: maxViewBytes)
        var body: [UInt8] = []
        body.reserveCapacity(views.count + 64)
        body.append(utf8: #"{"version":"#)
        JSONValue.string(session.cursor(version).description).serialize(into: &body)
        body.append(utf8: #","views":"#)
        body += views
        body.append(UInt8(ascii: "}"))
        return (body, version)
    }

    /// Full views with the reason the client's cursor could not be continued.
    func reset(_ reason: ResetReason) throws(Problem) -> Answer {
        let (version, snapshots) = session.store.views(views)
        let to = session.cursor(version).description
        let body = Self.body(
            [
                ("reason", .string(reason.rawValue)), ("reset", .literal("true")),
                ("to", .string(to)),
            ],
            views: try full(snapshots))
        return Answer(body: body, to: version, version: to, hasChanges: true, reset: reason)
    }

    /// A member of an answer's head.
    enum Field {
        /// Written as a JSON string.
        case string(String)
        /// Written as is: `null`, `true`.
        case literal(StaticString)
    }

    /// `{<fields>,"views":{"<name>":{"<form>":<json>},...}}`, written straight into bytes. The fields must
    /// come in key order and sort before `views`; the views are sorted here: the same bytes as serializing
    /// the equivalent `JSONValue`, whose objects are written in UTF-8 key order. Keys are plain ASCII names,
    /// copied as they are between quotes.
    ///
    /// Sized before it is written, so the buffer never grows: every long-poll answer and event is one of these.
    static func body(_ fields: [(key: StaticString, value: Field)], views: [ViewChange]) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(capacity(fields, views: views))
        body.append(UInt8(ascii: "{"))
        for (key, value) in fields {
            appendQuoted(key, to: &body)
            body.append(UInt8(ascii: ":"))
            switch value {
            case .string(let text): JSONValue.string(text).serialize(into: &body)
            case .literal(let text): body.append(utf8: text)
            }
            body.append(UInt8(ascii: ","))
        }
        body.append(utf8: #""views":{"#)
        let sorted = views.count < 2 ? views : views.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        for (index, view) in sorted.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            JSONValue.string(view.name).serialize(into: &body)
            body.append(utf8: ":{")
            appendQuoted(view.form.key, to: &body)
            body.append(UInt8(ascii: ":"))
            body += view.json
            body.append(UInt8(ascii: "}"))
        }
        body.append(utf8: "}}")
        return body
    }

    /// Each snapshot's name and JSON, each within the budget.
    private func full(_ snapshots: [ViewSnapshot]) throws(Problem) -> [ViewChange] {
        var views: [ViewChange] = []
        views.reserveCapacity(snapshots.count)
        for snapshot in snapshots {
            views.append(
                ViewChange(name: snapshot.name, form: .full, json: try snapshot.budgetedBytes(max: maxViewBytes)))
        }
        return views
    }

    /// The size of ``body(_:views:as:)``'s bytes, exact unless a string needs escaping.
    private static func capacity(_ fields: [(key: StaticString, value: Field)], views: [ViewChange]) -> Int {
        var size = 14  // {"views":{}} and a spare byte
        for (key, value) in fields {
            switch value {
            case .string(let text): size += key.utf8CodeUnitCount + text.utf8.count + 6
            case .literal(let text): size += key.utf8CodeUnitCount + text.utf8CodeUnitCount + 4
            }
        }
        for view in views { size += view.name.utf8.count + view.form.key.utf8CodeUnitCount + view.json.count + 9 }
        return size
    }

    private static func appendQuoted(_ name: StaticString, to body: inout [UInt8]) {
        body.append(UInt8(ascii: "\""))
        body.append(utf8: name)
        body.append(UInt8(ascii: "\""))
    }
}
