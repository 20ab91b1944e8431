import ExampleApp
import ExampleSignIn
import Foundation
import HTTPTestClient
import JWTKit
import Logging
import Prometheus
import ReMVVM
import ReMVVMSQLite
import ReMVVMServer
import Testing

/// The example's sign-in with HS256 JWTs over real HTTP, on SQLite: 401s for bad tokens, sessions bound to their
/// subject across a restart, the announcement route and `GET /v1/me`.
@Suite("The example's JWT sign-in")
struct JWTSignInTests {
    static let secret = "a test secret of at least thirty-two bytes"

    /// A token for `subject`, signed with `secret`, expiring `in` seconds from now.
    static func token(
        _ subject: String, role: String? = nil, name: String? = nil, expiresIn seconds: Double = 300,
        secret: String = JWTSignInTests.secret
    ) async throws -> String {
        let keys = await JWTKeyCollection().add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        return try await keys.sign(
            JWTSignIn.Claims(
                subject: subject, expires: Date(timeIntervalSinceNow: seconds), name: name, role: role))
    }

    static func bearer(_ token: String) -> (String, String) { ("Authorization", "Bearer \(token)") }
    static func cookie(_ session: [String: Any]) -> (String, String) {
        ("Cookie", "remvvm_token=\(session["token"] as? String ?? "")")
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test func expiredBadlySignedAndMalformedTokensAre401Problems() async throws {
        try await withExampleServer(everyRequest: false) { connection, _ in
            let tokens = [
                try await Self.token("alice", expiresIn: -60),
                try await Self.token("alice", secret: "another secret of at least thirty-two bytes"),
                "not.a.jwt",
            ]
            for (token, words) in zip(tokens, ["expired", "signature", "malformed"]) {
                let response = try await connection.request("POST", "/v1/sessions", headers: [Self.bearer(token)])
                #expect(response.status == 401)
                #expect(response.header("Content-Type") == "application/problem+json")
                #expect(response.header("WWW-Authenticate")?.contains("error=\"invalid_token\"") == true)
                let problem = try Self.json(response)
                #expect(problem["type"] as? String == "/problems/invalid-credentials")
                #expect((problem["detail"] as? String)?.contains(words) == true, "\(problem)")
            }
            let missing = try await connection.request("POST", "/v1/sessions")
            #expect(missing.status == 401)
            #expect(missing.header("WWW-Authenticate") == "Bearer realm=\"remvvm\"")
            #expect(try Self.json(missing)["type"] as? String == "/problems/missing-credentials")
        }
    }

    @Test func theIdentitySurvivesARestartAndIsRefusedToAnother() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("remvvm-jwt-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let alice = try await Self.token("alice", name: "Alice")
        let bob = try await Self.token("bob")
        var created: [String: Any] = [:]
        try await withExampleServer(everyRequest: true, directory: directory) { connection, _ in
            let response = try await connection.request("POST", "/v1/sessions", headers: [Self.bearer(alice)])
            #expect(response.status == 201)
            created = try Self.json(response)
        }
        let id = try #require(created["id"] as? String)
        try await withExampleServer(everyRequest: true, directory: directory) { connection, _ in
            let path = "/v1/sessions/\(id)"
            let asAlice = try await connection.request(
                "GET", path, headers: [Self.bearer(alice), Self.cookie(created)])
            #expect(asAlice.status == 200, "\(asAlice.text)")
            let asBob = try await connection.request("GET", path, headers: [Self.bearer(bob), Self.cookie(created)])
            #expect(asBob.status == 403)
            #expect(try Self.json(asBob)["type"] as? String == "/problems/identity-mismatch")
            // The middleware sees the restored identity: Alice joins under her name, whatever she sends.
            let join = try await connection.request(
                "POST", path + "/actions",
                headers: [Self.bearer(alice), Self.cookie(created), ("Content-Type", "application/json")],
                body: Array(#"{"type":"chat/join","payload":{"room":"lobby","name":"Mallory"}}"#.utf8))
            #expect(join.status == 200, "\(join.text)")
            let post = try await connection.request(
                "POST", path + "/actions",
                headers: [Self.bearer(alice), Self.cookie(created), ("Content-Type", "application/json")],
                body: Array(#"{"type":"chat/post","payload":{"text":"hello"}}"#.utf8))
            #expect(post.status == 200)
            let lines = try await Self.chatLines(
                connection, path: path, headers: [Self.bearer(alice), Self.cookie(created)])
            #expect(lines.contains { $0["from"] as? String == "Alice" && $0["text"] as? String == "hello" }, "\(lines)")
        }
    }

    @Test func anAdminAnnouncesToARoomAndOthersMayNot() async throws {
        let admin = try await Self.token("root", role: "admin")
        let user = try await Self.token("bob")
        try await withExampleServer(everyRequest: false) { connection, _ in
            let created = try Self.json(
                try await connection.request("POST", "/v1/sessions", headers: [Self.bearer(user)]))
            let id = try #require(created["id"] as? String)
            let session = [Self.bearer(created["token"] as? String ?? ""), ("Content-Type", "application/json")]
            let join = try await connection.request(
                "POST", "/v1/sessions/\(id)/actions", headers: session,
                body: Array(#"{"type":"chat/join","payload":{"room":"lobby","name":"bob"}}"#.utf8))
            #expect(join.status == 200)
            let body = Array(#"{"text":"maintenance at noon"}"#.utf8)
            let json = ("Content-Type", "application/json")
            let refused = try await connection.request(
                "POST", "/v1/rooms/lobby/announcements", headers: [Self.bearer(user), json], body: body)
            #expect(refused.status == 403)
            let anonymous = try await connection.request(
                "POST", "/v1/rooms/lobby/announcements", headers: [json], body: body)
            #expect(anonymous.status == 401)
            #expect(anonymous.header("WWW-Authenticate") != nil)
            let announced = try await connection.request(
                "POST", "/v1/rooms/lobby/announcements", headers: [Self.bearer(admin), json], body: body)
            #expect(announced.status == 202, "\(announced.text)")
            let lines = try await Self.chatLines(
                connection, path: "/v1/sessions/\(id)", headers: [Self.bearer(created["token"] as? String ?? "")])
            #expect(lines.contains { $0["from"] as? String == ExampleRoutes.announcer }, "\(lines)")
            let me = try await connection.request("GET", "/v1/me", headers: [Self.bearer(admin)])
            #expect(try Self.json(me)["subject"] as? String == "root")
            #expect(try await connection.request("GET", "/v1/me").status == 401)
            let metrics = try await connection.request("GET", "/metrics").text
            #expect(metrics.contains(#"route="/v1/rooms/{room}/announcements",status="202"} 1"#), "\(metrics)")
        }
    }

    @Test func theAdminTokenAnnouncesWithoutSignIn() async throws {
        let quiet = Logger(label: "remvvm.test") { _ in SwiftLogNoOpLogHandler() }
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.threads = 2
        configuration.drainPeriod = .zero
        let definition = ExampleApp.definition()
        let token = "an admin token of some length"
        let server = StoreServer(
            definition, configuration: configuration, logger: quiet,
            routes: ExampleRoutes.all(adminToken: token, signsIn: false))
        try server.start()
        let connection = try AsyncHTTPConnection(port: server.port, timeout: .seconds(30))
        let json = ("Content-Type", "application/json")
        let body = Array(#"{"text":"hello"}"#.utf8)
        let target = "/v1/rooms/lobby/announcements"
        let statuses = [
            try await connection.request("POST", target, headers: [json], body: body).status,
            try await connection.request("POST", target, headers: [json, Self.bearer("wrong")], body: body).status,
            try await connection.request("POST", target, headers: [json, Self.bearer(token)], body: body).status,
            // Sessions stay anonymous: no sign-in is configured.
            try await connection.request("POST", "/v1/sessions").status,
        ]
        connection.close()
        try await onOwnThread { server.stop() }
        #expect(statuses == [401, 401, 202, 201])
    }

    /// The chat view's lines, once a message arrived (topic deliveries are asynchronous): polls with a deadline.
    static func chatLines(
        _ connection: AsyncHTTPConnection, path: String, headers: [(String, String)]
    ) async throws -> [[String: Any]] {
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            let read = try await connection.request("GET", path + "?views=chat", headers: headers)
            let views = try Self.json(read)["views"] as? [String: Any]
            let lines = (views?["chat"] as? [String: Any])?["messages"] as? [[String: Any]] ?? []
            if !lines.isEmpty || ContinuousClock.now > deadline { return lines }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// Runs `body` against the example app with JWT sign-in and its routes, on SQLite in `directory` when given.
func withExampleServer(
    everyRequest: Bool, directory: String? = nil,
    _ body: (AsyncHTTPConnection, StoreServer) async throws -> Void
) async throws {
    let quiet = Logger(label: "remvvm.test") { _ in SwiftLogNoOpLogHandler() }
    var configuration = ServerConfiguration()
    configuration.host = "127.0.0.1"
    configuration.port = 0
    configuration.threads = 2
    configuration.drainPeriod = .zero
    // Metrics into a registry of the test's own, served at /metrics as the executable does.
    let registry = PrometheusCollectorRegistry()
    configuration.metricsFactory = PrometheusMetricsFactory(registry: registry)
    configuration.metricsExposition = { registry.emitToBuffer() }
    let definition = ExampleApp.definition()
    let authentication = Authentication(
        await JWTSignIn.hmac(secret: JWTSignInTests.secret), everyRequest: everyRequest,
        challenge: "Bearer realm=\"remvvm\"")
    let routes = ExampleRoutes.all(adminToken: nil, signsIn: true)
    let server =
        if let directory {
            StoreServer(
                definition, configuration: configuration,
                storage: try SQLiteSessionStorage(directory: directory, synchronous: .normal, logger: quiet),
                logger: quiet, authentication: authentication, routes: routes)
        } else {
            StoreServer(
                definition, configuration: configuration, logger: quiet, authentication: authentication, routes: routes)
        }
    try server.start()
    let connection = try AsyncHTTPConnection(port: server.port, timeout: .seconds(30))
    do {
        try await body(connection, server)
    } catch {
        connection.close()
        try await onOwnThread { server.stop() }
        throw error
    }
    connection.close()
    try await onOwnThread { server.stop() }
}
