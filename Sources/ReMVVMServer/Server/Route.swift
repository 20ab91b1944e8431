import ReMVVMJSON

/// Where a request goes, decided from its path alone.
enum Route: Equatable {
    case health
    case metrics
    case sessions
    /// A session's routes carry its id as the key it names, read from the path's bytes: nil when the segment is
    /// not one a session could have (32 lowercase hex digits), which no session is found under.
    case session(id: SessionKey?)
    case actions(id: SessionKey?)
    case poll(id: SessionKey?)
    case events(id: SessionKey?)
    case unknownAPI
    case staticFile
    /// One of the app's routes, by its label's index among every route's (after the API's own).
    case app(label: Int)

    /// Routes on the path's UTF-8 bytes: every literal here is ASCII without the few characters that have
    /// a canonically equivalent non-ASCII spelling, so comparing bytes decides as `String`'s `==` would.
    init(path: String) {
        var bytes = path
        self = bytes.withUTF8 { Self.route($0) }
    }

    private static func route(_ path: UnsafeBufferPointer<UInt8>) -> Route {
        if matches(path, "/healthz") { return .health }
        if matches(path, "/metrics") { return .metrics }
        if matches(path, "/v1/sessions") || matches(path, "/v1/sessions/") { return .sessions }
        guard matches(path, "/v1") || hasPrefix(path, "/v1/") else { return .staticFile }
        return sessionRoute(path) ?? .unknownAPI
    }

    /// `/v1/sessions/{id}` and its sub-resources.
    private static func sessionRoute(_ path: UnsafeBufferPointer<UInt8>) -> Route? {
        let prefix: StaticString = "/v1/sessions/"
        guard hasPrefix(path, prefix) else { return nil }
        let rest = UnsafeBufferPointer(rebasing: path[prefix.utf8CodeUnitCount...])
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else {
            return rest.isEmpty ? nil : .session(id: SessionKey(utf8: rest))
        }
        guard slash > 0 else { return nil }
        let id = SessionKey(utf8: UnsafeBufferPointer(rebasing: rest[..<slash]))
        let resource = UnsafeBufferPointer(rebasing: rest[(slash + 1)...])
        if matches(resource, "actions") { return .actions(id: id) }
        if matches(resource, "poll") { return .poll(id: id) }
        if matches(resource, "events") { return .events(id: id) }
        return nil
    }

    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        bytes.count == literal.utf8CodeUnitCount && hasPrefix(bytes, literal)
    }

    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count >= literal.utf8CodeUnitCount else { return false }
        return literal.withUTF8Buffer { literal in
            UnsafeBufferPointer(rebasing: bytes[..<literal.count]).span.bytesEqual(literal.span)
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
        case .app(let label): label
        }
    }

    /// Every route's label, by ``index``.
    static let labels = [
        "/healthz", "/metrics", "/v1/sessions", "/v1/sessions/{id}", "/v1/sessions/{id}/actions",
        "/v1/sessions/{id}/poll", "/v1/sessions/{id}/events", "/v1/*", "static",
    ]

    /// The label used in metrics and logs (an app route's is the API's, ``API/routeLabels``).
    var label: String { Self.labels.indices.contains(index) ? Self.labels[index] : "app" }
}
