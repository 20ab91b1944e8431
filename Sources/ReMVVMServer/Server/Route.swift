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
        switch path {
        case "/healthz": self = .health
        case "/metrics": self = .metrics
        case "/v1/sessions", "/v1/sessions/": self = .sessions
        default:
            guard path == "/v1" || path.hasPrefix("/v1/") else {
                self = .staticFile
                return
            }
            self = Self.sessionRoute(path) ?? .unknownAPI
        }
    }

    /// `/v1/sessions/{id}` and its sub-resources, read without splitting the path into an array.
    private static func sessionRoute(_ path: String) -> Route? {
        let prefix = "/v1/sessions/"
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.utf8.dropFirst(prefix.utf8.count)
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else {
            return rest.isEmpty ? nil : .session(id: String(Substring(rest)))
        }
        let id = String(Substring(rest[..<slash]))
        guard !id.isEmpty else { return nil }
        switch Substring(rest[rest.index(after: slash)...]) {
        case "actions": return .actions(id: id)
        case "poll": return .poll(id: id)
        case "events": return .events(id: id)
        default: return nil
        }
    }

    /// A small number per route, so metrics count without hashing strings.
    var index: Int {
        switch self {
        case .health: 0
        case .metrics: 1
        case .sessions: 2
        case .session: 3
        case .actions: 4
        case .poll: 5
        case .events: 6
        case .unknownAPI: 7
        case .staticFile: 8
        }
    }

    /// Every route's label, by ``index``.
    static let labels = [
        "/healthz", "/metrics", "/v1/sessions", "/v1/sessions/{id}", "/v1/sessions/{id}/actions",
        "/v1/sessions/{id}/poll", "/v1/sessions/{id}/events", "/v1/*", "static",
    ]

    /// The label used in metrics and logs.
    var label: String { Self.labels[index] }
}
