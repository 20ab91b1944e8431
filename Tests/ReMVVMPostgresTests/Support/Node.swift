import ExampleApp
import Foundation
import HTTPTestClient
import Logging
import PostgresTestSupport
import ReMVVM
import ReMVVMPersistence
import Testing

@testable import ReMVVMPostgres
@testable import ReMVVMServer

/// One server node of a test cluster: a real ``StoreServer`` on 127.0.0.1 at an ephemeral port, on the
/// test's PostgreSQL database.
struct Node: Sendable {
    let server: StoreServer
    let name: String
    /// The app's topic hub on this node.
    let topics: TopicHub

    static let quiet = Logger(label: "remvvm.test") { _ in SwiftLogNoOpLogHandler() }

    /// Starts node `name`; without `listens`, it learns of takeovers only through refused writes; its sessions
    /// expire after `sessionTTL` and its tidy runs every `tidyInterval` (by default the server's). `storage` wraps
    /// the node's PostgreSQL storage (to slow it down or count its calls); `authentication` checks its
    /// requests; `version` is the build of the example app it runs, writing the newest format while older nodes live
    /// only with `writesNewestFormat`.
    static func start(
        _ name: String, on database: TestDatabase, listens: Bool = true, snapshotEvery: Int = 1_000,
        services: Services = Services(), sessionTTL: Duration? = nil, tidyInterval: Duration? = nil,
        threads: Int = 2, maxPendingLoads: Int = 256,
        storage wrap: (PostgresSessionStorage) -> any SessionStorage = { $0 },
        authentication: Authentication? = nil, version: ExampleApp.Version = .v1, dropsUndecodable: Bool = false,
        writesNewestFormat: Bool = false
    ) throws -> Node {
        let storage = wrap(
            try PostgresSessionStorage(url: database.url, node: name, listensForTakeovers: listens, logger: quiet))
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.threads = threads
        configuration.maxPendingLoads = maxPendingLoads
        if let sessionTTL { configuration.sessionTTL = sessionTTL }
        if let tidyInterval { configuration.tidyInterval = tidyInterval }
        var durability = DurabilityConfiguration()
        durability.snapshotEvery = snapshotEvery
        durability.stateVersion = version.stateVersion
        durability.migrateState = { try ExampleApp.migrateState($0, from: $1) }
        durability.dropUndecodableSessions = dropsUndecodable
        durability.downgradeState = { try ExampleApp.downgradeState($0, to: $1) }
        durability.writesNewestFormat = writesNewestFormat
        let definition = ExampleApp.definition(version: version, services: services)
        let server = StoreServer(
            definition, configuration: configuration, storage: storage,
            durability: durability,
            logger: quiet, authentication: authentication)
        try server.start()
        return Node(server: server, name: name, topics: server.topics)
    }

    var port: UInt16 { server.port }

    /// A client on a new connection to this node.
    func client(timeout: Duration = .seconds(5)) throws -> NodeClient {
        try NodeClient(http: TestHTTPClient(port: port, timeout: timeout))
    }

    /// A new session on this node with `dispatches` acknowledged `counter/increase`s (each checked).
    func session(dispatching dispatches: Int) async throws -> ClusterSession {
        try await onOwnThread { [self] in
            let client = try client()
            let session = try client.createSession()
            for _ in 0..<dispatches { #expect(try client.dispatch(session).status == 200) }
            return session
        }
    }

    /// Stops (drains) the node on a thread of its own.
    func stop() async throws {
        try await onOwnThread { [server] in server.stop() }
    }
}

/// A session's credentials.
struct ClusterSession: Sendable {
    let id: String
    let token: String
    let epoch: String

    var path: String { "/v1/sessions/\(id)" }
    var authorization: (String, String) { ("Authorization", "Bearer \(token)") }

    func cursor(_ version: Int) -> String { "\(epoch).\(version)" }
}

/// The JSON calls of the tests, over one blocking keep-alive connection.
struct NodeClient {
    let http: TestHTTPClient

    static let increase = Array(#"{"type":"counter/increase"}"#.utf8)

    func createSession() throws -> ClusterSession {
        let response = try http.request("POST", "/v1/sessions")
        let body = try response.json()
        guard response.status == 201, let id = body["id"] as? String, let token = body["token"] as? String,
            let version = body["version"] as? String, let dot = version.lastIndex(of: ".")
        else { throw TestDatabaseError("create answered \(response.status): \(response.text)") }
        return ClusterSession(id: id, token: token, epoch: String(version[..<dot]))
    }

    func dispatch(_ session: ClusterSession, key: String? = nil) throws -> TestResponse {
        var headers = [session.authorization, ("Content-Type", "application/json")]
        if let key { headers.append(("Idempotency-Key", key)) }
        return try http.request(
            "POST", "\(session.path)/actions?views=counter", headers: headers, body: Self.increase)
    }

    func read(_ session: ClusterSession, token: String? = nil) throws -> TestResponse {
        try http.request(
            "GET", "\(session.path)?views=counter", headers: [("Authorization", "Bearer \(token ?? session.token)")])
    }

    func poll(_ session: ClusterSession, since: String, wait: String = "20s") throws -> TestResponse {
        try http.request(
            "GET", "\(session.path)/poll?views=counter&since=\(since)&wait=\(wait)", headers: [session.authorization])
    }
}

extension TestResponse {
    /// The body as a JSON object.
    func json() throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]) ?? [:]
    }

    /// The counter of a `{"views": {"counter": {"counter": "n"}}}` answer.
    var counter: Int? {
        guard let body = try? json(), let views = body["views"] as? [String: Any],
            let view = views["counter"] as? [String: Any]
        else { return nil }
        let model = (view["full"] as? [String: Any]) ?? view
        return (model["counter"] as? String).flatMap { Int($0) }
    }

    /// The problem type of a problem+json answer.
    var problemType: String? { (try? json())?["type"] as? String }
}
