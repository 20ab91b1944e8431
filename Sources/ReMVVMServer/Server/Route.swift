/// Where a request goes, decided from its path alone.
enum Route: Equatable {
    case health
    case metrics
    case sessions
    case session(id: String)
    case actions(id: String)
    case poll(id: String)
    case events(id: String)
    case unknownAPI
    case staticFile

    init(path: String) {
        if path == "/healthz" {
            self = .health
            return
        }
        if path == "/metrics" {
            self = .metrics
            return
        }
        guard path == "/v1" || path.hasPrefix("/v1/") else {
            self = .staticFile
            return
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst(2)
        guard parts.first == "sessions" else {
            self = .unknownAPI
            return
        }
        let rest = Array(parts.dropFirst())
        switch rest.count {
        case 0: self = .sessions
        case 1 where rest[0].isEmpty: self = .sessions
        case 1: self = .session(id: String(rest[0]))
        case 2 where rest[1] == "actions": self = .actions(id: String(rest[0]))
        case 2 where rest[1] == "poll": self = .poll(id: String(rest[0]))
        case 2 where rest[1] == "events": self = .events(id: String(rest[0]))
        default: self = .unknownAPI
        }
    }

    /// The label used in metrics and logs.
    var label: String {
        switch self {
        case .health: "/healthz"
        case .metrics: "/metrics"
        case .sessions: "/v1/sessions"
        case .session: "/v1/sessions/{id}"
        case .actions: "/v1/sessions/{id}/actions"
        case .poll: "/v1/sessions/{id}/poll"
        case .events: "/v1/sessions/{id}/events"
        case .unknownAPI: "/v1/*"
        case .staticFile: "static"
        }
    }
}
