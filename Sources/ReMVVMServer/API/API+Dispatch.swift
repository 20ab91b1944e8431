import Foundation
import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import ReMVVMPersistence
import Synchronization

extension API {
    /// `POST /v1/sessions/{id}/actions`: one action or a batch, answered once the reducers ran.
    func dispatch(_ session: Session, _ exchange: Exchange) {
        let request = exchange.request
        guard request.method == "POST" else {
            exchange.send(.methodNotAllowed(request.method, allowed: ["POST"]))
            return
        }
        let contentType = request.headers["content-type"]
        guard let contentType, Self.isJSON(contentType) else {
            exchange.send(.unsupportedMediaType(contentType))
            return
        }
        let key = request.headers["idempotency-key"]
        var note: CommitMetadata.Idempotency?
        if let key {
            guard IdempotencyCache.isValidKey(key) else {
                exchange.send(
                    .badRequest(
                        "Idempotency-Key must be 1 to 255 visible ASCII characters (inner spaces allowed)",
                        slug: "bad-idempotency-key"))
                return
            }
            let digest = IdempotencyCache.digest(request.body)
            switch session.idempotency.withLock({ $0.begin(key: key, digest: digest) }) {
            case .proceed: note = CommitMetadata.Idempotency(key: key, digest: digest)
            case .replay(let kept):
                let response = replayed(kept, session: session, request: request)
                // A first answer that failed to be stored is stored by the writer's repair: the replay waits for it.
                whenDurable(response, session: session.id) { answer in
                    if answer.status == 200 { exchange.sendPrepared(answer) } else { exchange.send(answer) }
                }
                return
            case .mismatch:
                exchange.send(
                    Problem(
                        status: 422, slug: "idempotency-key-reused", title: "Unprocessable Content",
                        detail: "Idempotency-Key '\(key)' was already used with another request body"))
                return
            case .inFlight:
                exchange.send(
                    Problem(
                        status: 409, slug: "idempotency-key-in-flight", title: "Conflict",
                        detail: "the first request with Idempotency-Key '\(key)' is still being processed"))
                return
            }
        }
        guard let durability, let note else {
            let (response, own) = dispatchResponse(session, request, note: note)
            respond(response, own, session: session, note: note, exchange)
            return
        }
        // The commit carries its key (its metadata) into the log, in one transaction, and the answer right after it.
        let (response, own) = dispatchResponse(session, request, note: note)
        if response.status == 200, case .bytes(let body) = response.body {
            durability.recordAnswer(
                session: session.id, key: note.key,
                answer: IdempotencyCache.compact(body, limit: configuration.maxIdempotentAnswerSize))
        }
        respond(response, own, session: session, note: note, exchange)
    }

    /// Sends a dispatch's answer, once durable when it changed something (showing the dispatch's own topic
    /// messages when they came back meanwhile).
    private func respond(
        _ response: HTTPResponse, _ own: OwnMessages?, session: Session, note: CommitMetadata.Idempotency?,
        _ exchange: Exchange
    ) {
        guard durability != nil, Self.isApplied(response) else {
            reshow(response, own, session: session) { [self] shown in
                finishDispatch(shown, note: note, session: session, exchange)
            }
            return
        }
        // With durability, the answer waits (parked, no thread held) until the commit is on disk; so does an
        // applied dispatch answered with a view over its budget.
        let stored = response.status == 200 ? response : HTTPResponse(status: 204)
        whenDurable(stored, session: session.id) { [self] answer in
            // A session another node took over keeps nothing of this dispatch: its retry goes there.
            let applied = session.hasMoved ? nil : response
            guard answer.status == stored.status else {
                finishDispatch(answer, applied: applied, note: note, session: session, exchange)
                return
            }
            reshow(response, own, session: session) { [self] shown in
                finishDispatch(shown, applied: applied, note: note, session: session, exchange)
            }
        }
    }

    /// Remembers the answer under its idempotency key, counts it and sends it.
    ///
    /// A dispatch answered 503 because its commit could not be stored was still applied in memory
    /// (`applied`), and the writer's repair stores it with its key: the key keeps that answer, so a
    /// retry gets it once it is durable instead of applying the actions a second time.
    private func finishDispatch(
        _ response: HTTPResponse, applied: HTTPResponse? = nil, note: CommitMetadata.Idempotency?, session: Session,
        _ exchange: Exchange
    ) {
        if let note {
            let kept = Self.isApplied(response) ? response : applied.flatMap { Self.isApplied($0) ? $0 : nil }
            let compacted = kept.map { compact($0) }
            session.idempotency.withLock { cache in
                if let compacted {
                    cache.finish(key: note.key, digest: note.digest, response: compacted)
                } else {
                    cache.abandon(key: note.key)
                }
            }
        }
        if response.status == 200 {
            // Built with the common headers already (see `versionedHeaders`), as is its replay.
            exchange.sendPrepared(response, dispatchStarted: exchange.started)
        } else {
            exchange.send(response, dispatchStarted: exchange.started)
        }
    }

    /// The answer an idempotency key keeps: its views left out (``IdempotencyCache/compact(_:limit:)``).
    private func compact(_ response: HTTPResponse) -> HTTPResponse {
        guard case .bytes(let body) = response.body else { return response }
        return HTTPResponse(
            status: response.status, headers: response.headers,
            body: .bytes(IdempotencyCache.compact(body, limit: configuration.maxIdempotentAnswerSize)))
    }

    /// A kept answer replayed to `request`: the same status, results and version, with the views the request
    /// names as they were at that version, read from the store's history; `{}` when the history no longer goes
    /// back that far (the client then reads or polls from the version it is given). An answer kept whole (an
    /// older storage row) is replayed as it was.
    private func replayed(_ kept: HTTPResponse, session: Session, request: HTTPRequest) -> HTTPResponse {
        guard case .bytes(let body) = kept.body, let prefix = IdempotencyCache.viewlessPrefix(body),
            let version = kept.headers["Store-Version"].flatMap({ Cursor(parsing: $0) }),
            version.epoch == session.epoch,
            let views = try? request.viewSelection(of: session.store), !views.isEmpty,
            let past = session.store.views(views, since: version.number).past, !past.isEmpty
        else { return kept }
        var rebuilt = Array(prefix)
        let sorted = past.count < 2 ? past : past.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        do {
            for (index, snapshot) in sorted.enumerated() {
                if index > 0 { rebuilt.append(UInt8(ascii: ",")) }
                JSONValue.string(snapshot.name).serialize(into: &rebuilt)
                rebuilt.append(UInt8(ascii: ":"))
                rebuilt += try snapshot.jsonBytes()
            }
        } catch {
            return kept
        }
        rebuilt.append(utf8: "}}")
        return HTTPResponse(status: kept.status, headers: kept.headers, body: .bytes(rebuilt))
    }

    /// Whether a dispatch answered so applied its actions: 200, or 507 when a view passed its budget after them
    /// (kept under its `Idempotency-Key` like a 200, so a retry is answered, never applied again).
    private static func isApplied(_ response: HTTPResponse) -> Bool {
        response.status == 200 || response.status == Problem.viewTooLargeStatus
    }

    /// Dispatches the request's actions with `note` (the request's idempotency key) in the commit's metadata, and
    /// builds the answer.
    private func dispatchResponse(
        _ session: Session, _ request: HTTPRequest, note: CommitMetadata.Idempotency?
    ) -> (HTTPResponse, OwnMessages?) {
        // Refused before reducing while the storage is known to be failing: the state in memory does not run
        // further ahead of the log than the batch whose write failed (an atomic load).
        if let durability, durability.isFailing { return (Problem.storageDown.response, nil) }
        do {
            let views = try request.viewSelection(of: session.store)
            let expected = try expectedVersion(request, session: session)
            let decoded = try admittedActions(request)
            let outcome: DispatchOutcome
            do {
                outcome = try session.store.dispatch(
                    decoded, views: views, expectedVersion: expected, metadata: CommitMetadata(idempotency: note))
            } catch {
                // Closed because another node took the session over: the retry goes there.
                if error.isClosed {
                    return ((session.hasMoved ? Problem.sessionMoved : .sessionNotFound).response, nil)
                }
                return (Problem.versionMismatch(current: session.cursor(error.currentVersion)).response, nil)
            }
            // A long-poll woken by this dispatch has written the version and its headers already.
            let written = session.answers.headers(at: outcome.version)
            let version = written?.version ?? session.cursor(outcome.version).description  // Used thrice.
            let body: [UInt8]
            do {
                try checkChangedViews(session, outcome)
                body = try Self.dispatchBody(outcome, version: version, maxViewBytes: configuration.maxViewBytes)
            } catch  where error.status == Problem.viewTooLargeStatus {
                metrics.refused(.viewBudget)
                return (Problem.appliedButViewTooLarge(error, version: version).response, nil)
            }
            let response = HTTPResponse(
                status: 200, headers: written?.headers ?? Self.versionedHeaders(version: version), body: .bytes(body))
            let own =
                outcome.published && !views.isEmpty
                ? OwnMessages(views: views, results: outcome.results, version: outcome.version) : nil
            return (response, own)
        } catch {
            return (error.response, nil)
        }
    }

    /// The actions of a dispatch's body, if a client may send them: the door every action from outside the
    /// server passes. Only the app's ``StoreDefinition/clientActions`` are decoded; any other known type is
    /// refused with 403 before its payload is read, so a client cannot forge an effect's result or a topic's
    /// message. The one place where what a caller may send is decided.
    private func admittedActions(_ request: HTTPRequest) throws(Problem) -> [any StoreAction] {
        do {
            return try actions.decodeClientActions(from: request.body)
        } catch {
            throw Problem.invalidAction(error)
        }
    }

    /// The complete header list of a JSON answer that brings the client to `version` (a dispatch's
    /// or a long-poll's), built in one allocation: the version headers (`Store-Version`, `ETag`),
    /// the JSON content type and ``Exchange/apiHeaders``.
    static func versionedHeaders(version: String) -> HTTPHeaders {
        var headers = HTTPHeaders(minimumCapacity: 5)
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Store-Version", value: version)
        headers.add(name: "ETag", value: Cursor.entityTag(of: version))
        for (name, value) in Exchange.apiHeaders { headers.add(name: name, value: value) }
        return headers
    }

    /// `{"results": [...], "version": "...", "views": {...}}`, written straight into bytes: each
    /// view's JSON is serialized once per version and shared by every answer that shows it.
    static func dispatchBody(
        _ outcome: DispatchOutcome, version: String, maxViewBytes: Int
    ) throws(Problem) -> [UInt8] {
        try dispatchBody(results: outcome.results, views: outcome.views, version: version, maxViewBytes: maxViewBytes)
    }

    /// The body of a dispatch's answer with `results`, showing `views` at `version`.
    static func dispatchBody(
        results: [ActionResult], views: [ViewSnapshot], version: String, maxViewBytes: Int
    ) throws(Problem) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(96)
        body.append(utf8: #"{"results":["#)
        for (index, result) in results.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            switch result {
            case .applied: body.append(utf8: #""applied""#)
            case .blocked(let reason):
                body.append(utf8: #"{"blocked":"#)
                JSONValue.string(reason).serialize(into: &body)
                body.append(UInt8(ascii: "}"))
            }
        }
        body.append(utf8: #"],"version":"#)
        JSONValue.string(version).serialize(into: &body)
        body.append(utf8: #","views":{"#)
        let views = views.count < 2 ? views : views.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        for (index, snapshot) in views.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            JSONValue.string(snapshot.name).serialize(into: &body)
            body.append(UInt8(ascii: ":"))
            body += try snapshot.budgetedBytes(max: maxViewBytes)
        }
        body.append(utf8: "}}")
        return body
    }

    /// Checks every view the dispatch changed against the budget, the requested ones as the answer is built and
    /// the others here: the dispatch that makes a view too large is the one told so (naming it), whoever watches
    /// it. Each is encoded once, for every answer after.
    private func checkChangedViews(_ session: Session, _ outcome: DispatchOutcome) throws(Problem) {
        for snapshot in outcome.otherChanged {
            _ = try snapshot.budgetedBytes(max: configuration.maxViewBytes)
        }
    }

    /// The version an `If-Match` header requires, if any; `*` (RFC 9110: any current version) requires none.
    private func expectedVersion(_ request: HTTPRequest, session: Session) throws(Problem) -> UInt64? {
        guard let header = request.headers["if-match"]?.trimmingWhitespace(), header != "*" else { return nil }
        guard let cursor = Cursor(entityTag: header) else {
            throw .badRequest("If-Match must be a version such as \"\(session.cursor)\"", slug: "bad-if-match")
        }
        guard cursor.epoch == session.epoch else { throw .versionMismatch(current: session.cursor) }
        return cursor.number
    }

    /// Whether the media type (before any `;` parameters, spaces trimmed) is `application/json` in any case;
    /// read on the bytes, as it runs on every dispatch.
    static func isJSON(_ contentType: String) -> Bool {
        var contentType = contentType
        return contentType.withUTF8 { bytes in
            let range = ASCII.trimmingBlanks(bytes, in: 0..<(bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count))
            return ASCII.equalsLowercased(bytes[range], "application/json")
        }
    }
}
