import ExampleApp
import HTTPTestClient
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import Testing

@testable import ReMVVMServer

/// The app's own routes over real HTTP: parameters, JSON bodies, the caller's identity, problem errors, metrics.
@Suite("The app's own routes")
struct AppRouteTests {
    struct Note: Codable, Sendable {
        var text: String
    }

    struct Echo: Codable, Sendable {
        var name: String
        var text: String
        var subject: String?
    }

    struct Broken: Error {}

    static let routes: [AppRoute] = [
        .post("/v1/notes/{name}", body: Note.self) { request, note in
            if note.text == "conflict" {
                throw RouteError(status: 409, slug: "note-exists", detail: "a note with this text exists; change it")
            }
            if note.text == "crash" { throw Broken() }
            let echo = Echo(
                name: request.parameters["name", default: ""], text: note.text, subject: request.identity?.subject)
            return try .json(echo, status: 201)
        },
        .get("/v1/notes/{name}") { request in
            guard request.identity != nil else { throw AuthenticationError.missingCredentials("sign in to read") }
            return .noContent
        },
    ]

    static let json = ("Content-Type", "application/json")

    @Test func aRouteAnswersWithItsParametersBodyAndTheCallersIdentity() async throws {
        try await withSignInServer(AuthenticationTests.users, routes: Self.routes) { server in
            let client = try server.client()
            let anonymous = try await client.request(
                "POST", "/v1/notes/groceries", headers: [Self.json], body: Array(#"{"text":"milk"}"#.utf8))
            #expect(anonymous.status == 201)
            #expect(try anonymous.json() == ["name": "groceries", "text": "milk"])
            let signed = try await client.request(
                "POST", "/v1/notes/groceries", headers: [Self.json, AuthenticationTests.user("alice")],
                body: Array(#"{"text":"eggs"}"#.utf8))
            #expect(try signed.json()["subject"]?.stringValue == "alice")
            #expect(
                try await client.request("GET", "/v1/notes/x", headers: [AuthenticationTests.user("al")]).status == 204)
        }
    }

    @Test func aRoutesErrorsAreProblems() async throws {
        try await withSignInServer(AuthenticationTests.users, routes: Self.routes) { server in
            let client = try server.client()
            func post(_ body: String, headers: [(String, String)] = [Self.json]) async throws -> TestResponse {
                try await client.request("POST", "/v1/notes/a", headers: headers, body: Array(body.utf8))
            }
            let cases: [(TestResponse, Int, String)] = [
                (try await post(#"{"text":"conflict"}"#), 409, "note-exists"),
                (try await post(#"{"text":"crash"}"#), 500, "internal"),
                (try await post("{not json"), 400, "malformed-json"),
                (try await post(#"{"txt":"x"}"#), 422, "invalid-body"),
                (
                    try await post(#"{"text":"x"}"#, headers: [("Content-Type", "text/plain")]), 415,
                    "unsupported-media-type"
                ),
                (try await client.request("GET", "/v1/notes/a"), 401, "missing-credentials"),
                (
                    try await post(#"{"text":"x"}"#, headers: [Self.json, AuthenticationTests.user("expired")]), 401,
                    "invalid-credentials"
                ),
                (try await client.request("DELETE", "/v1/notes/a"), 405, "method-not-allowed"),
            ]
            for (response, status, slug) in cases {
                #expect(response.status == status, "\(response.text)")
                #expect(response.header("Content-Type") == "application/problem+json")
                #expect(try response.json()["type"]?.stringValue == "/problems/\(slug)", "\(response.text)")
            }
            #expect(try await post(#"{"text":"crash"}"#).text.contains("Broken") == false)
            #expect(try await post(#"{"txt":"x"}"#).json()["detail"]?.stringValue == "'text' is missing")
            #expect(try await client.request("DELETE", "/v1/notes/a").header("Allow") == "POST, GET")
            #expect(
                try await client.request("GET", "/v1/notes/a").header("WWW-Authenticate") == "Bearer realm=\"test\"")
            // Not a route of the app's: the API's own 404.
            #expect(try await client.request("GET", "/v1/notes").status == 404)
        }
    }

    @Test func aRouteIsCountedInMetricsUnderItsPattern() async throws {
        try await withSignInServer(nil, routes: Self.routes) { server in
            let client = try server.client()
            for _ in 0..<3 {
                _ = try await client.request(
                    "POST", "/v1/notes/n", headers: [Self.json], body: Array(#"{"text":"x"}"#.utf8))
            }
            let metrics = try await client.metrics()
            #expect(
                metrics.contains(#"remvvm_http_requests_total{route="/v1/notes/{name}",status="201"} 3"#), "\(metrics)")
        }
    }

    @Test func beyondItsBudgetOfRunningHandlersARouteIs503() async throws {
        let gate = AsyncGate()
        let slow = AppRoute.get("/v1/slow") { _ in
            await gate.wait()
            return .noContent
        }
        try await withSignInServer(nil, routes: [slow], configure: { $0.maxRunningHandlers = 1 }) { server in
            defer { gate.open() }
            let client = try server.client()
            let first = try await client.start("GET", "/v1/slow")
            try await gate.arrival()
            let second = try await client.request("GET", "/v1/slow")
            #expect(second.status == 503)
            #expect(second.header("Retry-After") == "1")
            #expect(try second.json()["type"]?.stringValue == "/problems/busy")
            gate.open()
            #expect(try await first.response().status == 204)
        }
    }

    @Test func aStoppedServerRunsNoRoute() async throws {
        try await withSignInServer(nil, routes: Self.routes) { server in
            server.server.api.handlers.cancelAll()
            let client = try server.client()
            let response = try await client.request(
                "POST", "/v1/notes/n", headers: [Self.json], body: Array(#"{"text":"x"}"#.utf8))
            #expect(response.status == 503)
            #expect(response.header("Retry-After") != nil)
        }
    }
}
