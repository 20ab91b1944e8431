import Glibc

/// Where a request goes, decided from its path alone.
enum Route: Equatable {
    case health
    case metrics
    case sessions
    case session(id: Substring)
    case actions(id: Substring)
    case poll(id: Substring)
    case events(id: Substring)
    case unknownAPI
    case staticFile

    /// Routes on the path's UTF-8 bytes: every literal here is ASCII without the few characters that have
    /// a canonically equivalent non-ASCII spelling, so comparing bytes decides as `String`'s `==` would.
    /// A session id is a slice of the path (no copy).
    init(path: String) {
        var bytes = path
        let (route, id) = bytes.withUTF8 { Self.route($0) }
        switch route {
        case .session, .actions, .poll, .events:
            let utf8 = path.utf8
            let start = utf8.index(utf8.startIndex, offsetBy: id.lowerBound)
            let slice = path[start..<utf8.index(start, offsetBy: id.count)]
            self = route.withID(slice)
        default:
            self = route
        }
    }

    /// The route, with an empty id, and where in the path the session id is.
    private static func route(_ path: UnsafeBufferPointer<UInt8>) -> (Route, id: Range<Int>) {
        if matches(path, "/healthz") { return (.health, 0..<0) }
        if matches(path, "/metrics") { return (.metrics, 0..<0) }
        if matches(path, "/v1/sessions") || matches(path, "/v1/sessions/") { return (.sessions, 0..<0) }
        guard matches(path, "/v1") || hasPrefix(path, "/v1/") else { return (.staticFile, 0..<0) }
        return sessionRoute(path) ?? (.unknownAPI, 0..<0)
    }

    /// `/v1/sessions/{id}` and its sub-resources.
    private static func sessionRoute(_ path: UnsafeBufferPointer<UInt8>) -> (Route, id: Range<Int>)? {
        let prefix: StaticString = "/v1/sessions/"
        guard hasPrefix(path, prefix) else { return nil }
        let start = prefix.utf8CodeUnitCount
        let rest = UnsafeBufferPointer(rebasing: path[start...])
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else {
            return rest.isEmpty ? nil : (.session(id: ""), start..<path.count)
        }
        guard slash > 0 else { return nil }
        let id = start..<(start + slash)
        let resource = UnsafeBufferPointer(rebasing: rest[(slash + 1)...])
        if matches(resource, "actions") { return (.actions(id: ""), id) }
        if matches(resource, "poll") { return (.poll(id: ""), id) }
        if matches(resource, "events") { return (.events(id: ""), id) }
        return nil
    }

    /// The same session route with `id`.
    private func withID(_ id: Substring) -> Route {
        switch self {
        case .session: .session(id: id)
        case .actions: .actions(id: id)
        case .poll: .poll(id: id)
        case .events: .events(id: id)
        default: self
        }
    }

    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        bytes.count == literal.utf8CodeUnitCount && hasPrefix(bytes, literal)
    }

    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count >= literal.utf8CodeUnitCount else { return false }
        return literal.withUTF8Buffer { literal in
            guard let base = bytes.baseAddress, let expected = literal.baseAddress else { return literal.isEmpty }
            return memcmp(base, expected, literal.count) == 0
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
