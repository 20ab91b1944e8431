import Logging
import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import Synchronization

extension API {
    /// Runs `body` off the HTTP worker, the request parked meanwhile, in a task the server owns; answers 503 when
    /// the server runs its maximum of them or stops. A body whose task was cancelled (the server stops) is
    /// answered 503 draining by ``Problem/draining`` where it checks.
    func runParked(_ exchange: Exchange, _ body: @escaping @Sendable () async -> Void) {
        guard !draining.load(ordering: .relaxed) else {
            exchange.send(.draining)
            return
        }
        guard handlers.run(body) else {
            exchange.send(
                draining.load(ordering: .relaxed) ? .draining : .handlersBusy(configuration.maxRunningHandlers))
            return
        }
    }

    /// Who sent `request`, as the app's authenticator says; nil without one (or, when `missingIsAnonymous`, for a
    /// request without credentials). A refusal comes back as the problem to answer.
    func identify(_ request: RequestHead, missingIsAnonymous: Bool = false) async -> Result<Identity?, Problem> {
        guard let authentication else { return .success(nil) }
        do {
            return .success(try await authentication.authenticator.authenticate(request))
        } catch let error as AuthenticationError {
            if missingIsAnonymous, error.code == .missing { return .success(nil) }
            return .failure(Problem.authentication(error, challenge: authentication.challenge))
        } catch {
            logger.warning("the app's authenticator failed", metadata: ["error": "\(error)"])
            return .failure(.authenticationUnavailable)
        }
    }

    /// Serves a request on `session` once the app's authenticator named the session's own subject (with
    /// ``Authentication/everyRequest``); else at once.
    func authenticated(
        _ session: Session, _ exchange: Exchange, _ then: @escaping @Sendable (API, Session, Exchange) -> Void
    ) {
        guard let authentication, authentication.everyRequest else {
            then(self, session, exchange)
            return
        }
        let head = RequestHead(exchange.request, clientAddress: clientAddress.of(exchange.request))
        runParked(exchange) { [self] in
            let outcome = await identify(head)
            guard !Task.isCancelled else { return exchange.send(.draining) }
            switch outcome {
            case .failure(let problem): exchange.send(problem)
            case .success(let identity):
                guard let identity, identity.subject == session.store.identity?.subject else {
                    return exchange.send(.identityMismatch)
                }
                then(self, session, exchange)
            }
        }
    }
}

extension Problem {
    /// The authenticator's refusal: 401 with the challenge for missing or invalid credentials, 403 for refused.
    static func authentication(_ error: AuthenticationError, challenge: String) -> Problem {
        switch error.code {
        case .missing:
            return .missingCredentials(error.detail, challenge: challenge)
        case .invalid:
            // RFC 6750's error attribute, after the challenge's own parameters if it has any.
            let separator = challenge.contains(" ") ? ", " : " "
            return Problem(
                status: 401, slug: "invalid-credentials", title: "Unauthorized", detail: error.detail,
                headers: ["WWW-Authenticate": challenge + separator + "error=\"invalid_token\""])
        case .refused:
            return Problem(status: 403, slug: "forbidden", title: "Forbidden", detail: error.detail)
        }
    }

    /// The credentials name another subject than the session's.
    static let identityMismatch = Problem(
        status: 403, slug: "identity-mismatch", title: "Forbidden",
        detail:
            "this session belongs to another identity than the credentials sent name; create a session of your own "
            + "(POST /v1/sessions)")

    /// The app's authenticator failed for a reason that says nothing about the caller.
    static let authenticationUnavailable = Problem(
        status: 503, slug: "authentication-unavailable", title: "Service Unavailable",
        detail: "the credentials could not be checked now; retry", headers: ["Retry-After": "1"])

    /// The server runs its maximum of the app's handlers at once.
    static func handlersBusy(_ limit: Int) -> Problem {
        Problem(
            status: 503, slug: "busy", title: "Service Unavailable",
            detail: "the server runs its maximum of \(limit) sign-ins and app routes at once; retry",
            headers: ["Retry-After": "1"])
    }
}
