import Synchronization

@testable import ReMVVMServer

/// Every (method, route, status) one test observed, so the test can check each against the OpenAPI description.
///
/// Routes are named by the server's own router, so a path the router files under another route is recorded
/// under that route, not under what the test meant to call.
final class ExchangeLog: Sendable {
    private let exchanges = Mutex<Set<ObservedExchange>>([])

    /// What was observed, sorted for stable failure messages.
    var observed: [ObservedExchange] {
        exchanges.withLock { $0 }.sorted { $0.description < $1.description }
    }

    /// Records the answer to `method target`; a target outside every route (`/v1/nope`) is not recorded.
    func record(method: String, target: String, status: Int) {
        guard let route = Self.route(of: target) else { return }
        _ = exchanges.withLock { $0.insert(ObservedExchange(method: method, route: route, status: status)) }
    }

    /// The OpenAPI path template for a request target, as the server routes it; nil for `/v1/*` paths the
    /// router does not know.
    static func route(of target: String) -> String? {
        let path = String(target.prefix { $0 != "?" })
        let route = Route(path: path)
        switch route {
        case .unknownAPI, .app: return nil
        case .staticFile: return path == "/" ? "/" : "/{file}"
        case .health, .metrics, .sessions, .session, .actions, .poll, .events: return route.label
        }
    }
}
