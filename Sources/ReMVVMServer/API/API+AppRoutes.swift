import Logging
import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM

extension API {
    /// Serves a request an app route matched: off the worker, the request parked, after the authenticator (a
    /// request without credentials reaches the handler with no identity).
    func serveAppRoute(_ match: AppRouter.Match, _ exchange: Exchange) {
        switch match {
        case .wrongMethod(let allowed, _):
            exchange.send(.methodNotAllowed(exchange.request.method, allowed: allowed))
        case .route(let route, let parameters, _):
            let head = RequestHead(exchange.request, clientAddress: clientAddress.of(exchange.request))
            let body = exchange.request.body
            runParked(exchange) { [self] in
                let identity: Identity?
                switch await identify(head, missingIsAnonymous: true) {
                case .failure(let problem): return exchange.send(problem)
                case .success(let found): identity = found
                }
                guard !Task.isCancelled else { return exchange.send(.draining) }
                let request = AppRequest(head: head, parameters: parameters, identity: identity, topics: topics)
                do {
                    let response = try await route.handler(request, body)
                    guard !Task.isCancelled else { return exchange.send(.draining) }
                    exchange.send(HTTPResponse(response))
                } catch {
                    exchange.send(problem(for: error, route: route))
                }
            }
        }
    }

    /// What a route's error is answered with: its own problem, or a 500 that names no internals (logged here).
    private func problem(for error: any Error, route: AppRoute) -> Problem {
        switch error {
        case let error as RouteError:
            var problem = Problem(
                status: error.status, slug: error.slug, title: Problem.title(of: error.status), detail: error.detail)
            if let seconds = error.retryAfter { problem.headers["Retry-After"] = "\(seconds)" }
            return problem
        case let error as AuthenticationError:
            return .authentication(error, challenge: authentication?.challenge ?? "Bearer")
        case is CancellationError:
            return .draining
        default:
            logger.error(
                "an app route failed", metadata: ["http.route": "\(route.method) \(route.path)", "error": "\(error)"])
            return .internalError("the route's handler failed; the server's log has the error")
        }
    }
}

extension HTTPResponse {
    /// An app route's answer.
    init(_ response: AppResponse) {
        var headers = HTTPHeaders(response.headers)
        if !response.body.isEmpty, !headers.contains("content-type") { headers["Content-Type"] = "application/json" }
        self.init(status: response.status, headers: headers, body: .bytes(response.body))
    }
}

extension Problem {
    /// The reason phrase of `status` (RFC 9110), the problem's title.
    static func title(of status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 410: "Gone"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: status < 500 ? "Client Error" : "Server Error"
        }
    }
}
