import Logging
import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import ReMVVMPersistence
import Synchronization

extension API {
    /// `POST /v1/sessions`: a new session with its own store.
    func createSession(_ exchange: Exchange) {
        guard exchange.request.method == "POST" else {
            exchange.send(.methodNotAllowed(exchange.request.method, allowed: ["POST"]))
            return
        }
        guard !draining.load(ordering: .relaxed) else {
            exchange.send(.draining)
            return
        }
        if let durability, durability.isFailing {
            exchange.send(.storageDown)
            return
        }
        if let creationBudget,
            case .refused(let retryAfter) = creationBudget.take(
                clientAddress.of(exchange.request), now: exchange.started)
        {
            metrics.refused(.sessionCreationRate)
            exchange.send(.tooManySessions(configuration, retryAfter: retryAfter))
            return
        }
        guard authentication != nil else {
            createSession(exchange, identity: nil)
            return
        }
        // The app's sign-in first, off the worker: the session is the identity's it names.
        let head = RequestHead(exchange.request, clientAddress: clientAddress.of(exchange.request))
        runParked(exchange) { [self] in
            let outcome = await identify(head)
            guard !Task.isCancelled else { return exchange.send(.draining) }
            switch outcome {
            case .success(let identity): createSession(exchange, identity: identity)
            case .failure(let problem): exchange.send(problem)
            }
        }
    }

    /// Creates the session of `identity` (nil: anonymous) and answers with its credentials and views.
    private func createSession(_ exchange: Exchange, identity: Identity?) {
        guard let session = sessions.create(identity: identity) else {
            metrics.refused(.sessionLimit)
            exchange.send(.unavailable("the server holds its maximum of \(configuration.maxSessions) sessions"))
            return
        }
        logger.info(
            "session created",
            metadata: identity.map { ["session.id": "\(session.id)", "identity.subject": "\($0.subject)"] } ?? [
                "session.id": "\(session.id)"
            ])
        do {
            let (version, snapshots) = session.store.views(session.store.allViews)
            let cursor = session.cursor(version)
            var body: [UInt8] = []
            body.append(utf8: #"{"id":"#)
            JSONValue.string(session.id).serialize(into: &body)
            body.append(utf8: #","token":"#)
            JSONValue.string(session.token ?? "").serialize(into: &body)
            body.append(utf8: #","version":"#)
            JSONValue.string(cursor.description).serialize(into: &body)
            body.append(utf8: #","views":"#)
            body += try snapshots.viewsObjectBytes(max: configuration.maxViewBytes)
            body.append(UInt8(ascii: "}"))
            var headers = versionHeaders(cursor)
            headers["Location"] = "/v1/sessions/\(session.id)"
            headers.add(name: "Set-Cookie", value: sessionCookie(session, exchange.request))
            // With durability, the credentials are handed out only once the session is on disk.
            whenDurable(.json(201, body, headers: headers)) { response in
                if response.status != 201 { self.sessions.remove(id: session.id) }
                exchange.send(response)
            }
        } catch {
            sessions.remove(id: session.id)
            exchange.send(error)
        }
    }

    /// `GET` and `DELETE /v1/sessions/{id}`.
    func sessionResource(_ session: Session, _ exchange: Exchange) {
        switch exchange.request.method {
        case "GET", "HEAD": readSession(session, exchange)
        case "DELETE":
            sessions.remove(id: session.id)
            logger.info("session deleted", metadata: ["session.id": "\(session.id)"])
            whenDurable(HTTPResponse(status: 204)) { response in exchange.send(response) }
        default:
            exchange.send(.methodNotAllowed(exchange.request.method, allowed: ["GET", "DELETE"]))
        }
    }

    /// Shows the views of a version only once it is on disk, so a crash never takes it back: at once when it is
    /// (see ``whenStored(_:of:_:)``). When the storage failed to store the newest commits, the views of the last
    /// stored version are shown if the store still keeps them; else the read is answered 503 with Retry-After.
    private func readSession(_ session: Session, _ exchange: Exchange) {
        let views: ViewSet
        do {
            views = try exchange.request.viewSelection(of: session.store)
        } catch {
            exchange.send(error)
            return
        }
        let (version, snapshots) = session.store.views(views)
        whenStored(version, of: session) { [self] problem in
            guard let problem else {
                answerRead(session, version: version, snapshots: snapshots, exchange)
                return
            }
            let stored = session.durable.version
            guard problem.slug == Problem.storageDown.slug, stored >= session.base,
                let past = session.store.views(views, since: stored).past
            else {
                exchange.send(problem)
                return
            }
            answerRead(session, version: stored, snapshots: past, exchange)
        }
    }

    /// Answers a read with the views of `version` (or 304 when the client's tag names it).
    private func answerRead(_ session: Session, version: UInt64, snapshots: [ViewSnapshot], _ exchange: Exchange) {
        do {
            let cursor = session.cursor(version)
            if let tag = exchange.request.headers["if-none-match"],
                tag.split(separator: ",").contains(where: { Cursor(parsing: $0.trimmingWhitespace()) == cursor })
            {
                exchange.send(HTTPResponse(status: 304, headers: versionHeaders(cursor)))
                return
            }
            var body: [UInt8] = []
            body.append(utf8: #"{"version":"#)
            JSONValue.string(cursor.description).serialize(into: &body)
            body.append(utf8: #","views":"#)
            body += try snapshots.viewsObjectBytes(max: configuration.maxViewBytes)
            body.append(UInt8(ascii: "}"))
            var headers = versionHeaders(cursor)
            if exchange.request.headers.contains("authorization") {
                // A browser that lost its cookie (restarted) but kept the session gets it back, so
                // its event stream can authenticate again.
                headers.add(name: "Set-Cookie", value: sessionCookie(session, exchange.request))
            }
            exchange.send(.json(200, body, headers: headers))
        } catch {
            exchange.send(error)
        }
    }

    /// The cookie that lets the browser client authenticate requests it cannot add headers to (SSE); `Secure` when
    /// the request came over TLS to a trusted proxy in front, so the browser never sends it in the clear.
    func sessionCookie(_ session: Session, _ request: HTTPRequest) -> String {
        let secure = clientAddress.isSecure(request) ? "; Secure" : ""
        return "\(Credentials.cookieName)=\(session.token ?? ""); Path=/; HttpOnly; SameSite=Strict\(secure)"
    }

    /// `Store-Version` and `ETag` for a cursor.
    func versionHeaders(_ cursor: Cursor) -> HTTPHeaders {
        ["Store-Version": cursor.description, "ETag": cursor.etag]
    }
}

extension Problem {
    /// A client address spent its session-creation budget (``ServerConfiguration/sessionCreationBurst``).
    static func tooManySessions(_ configuration: ServerConfiguration, retryAfter: Int) -> Problem {
        let perSecond = configuration.sessionCreationRate
        let rate = perSecond == perSecond.rounded() && abs(perSecond) < 1e9 ? "\(Int(perSecond))" : "\(perSecond)"
        return Problem(
            status: 429, slug: "too-many-sessions", title: "Too Many Requests",
            detail:
                "this client address may create \(configuration.sessionCreationBurst) sessions at once, then "
                + "\(rate) per second, and has used that up: retry in \(retryAfter) s, and keep using one session "
                + "rather than creating one per visit",
            headers: ["Retry-After": "\(retryAfter)"])
    }
}
