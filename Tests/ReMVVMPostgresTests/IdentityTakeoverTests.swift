import ExampleApp
import Foundation
import HTTPTestClient
import PostgresTestSupport
@_spi(ReMVVMServer) import ReMVVM
import Testing

@testable import ReMVVMPostgres
@testable import ReMVVMServer

/// A session's identity is stored with it in PostgreSQL: the node that takes the session over knows whose it
/// is, serves its owner and refuses anyone else.
@Suite(.enabled(if: TestDatabase.baseURL != nil, Comment(rawValue: TestDatabase.whyDisabled)), .serialized)
final class IdentityTakeoverTests {
    let database: TestDatabase

    init() throws {
        database = try TestDatabase()
    }

    /// Reads `X-User: <subject>` on every request.
    static let users = Authentication(everyRequest: true) { request in
        guard let user = request.header("x-user") else { throw AuthenticationError.missingCredentials() }
        return Identity(subject: user, claims: ["name": user.capitalized])
    }

    @Test func theIdentitySurvivesATakeover() async throws {
        let nodeA = try Node.start("node-a", on: database, authentication: Self.users)
        let nodeB = try Node.start("node-b", on: database, authentication: Self.users)
        try await database.waitForListeners(2)
        // The authenticator runs on the process's concurrency pool, which the suite's CPU-bound tests can hold for
        // seconds: the clients wait 30 s.
        let (id, token) = try await onOwnThread {
            let created = try nodeA.client(timeout: .seconds(30)).http.request(
                "POST", "/v1/sessions", headers: [("X-User", "alice")])
            let body = try created.json()
            return (body["id"] as? String ?? "", body["token"] as? String ?? "")
        }
        let stored = try database.connect().execute(
            "SELECT identity FROM sessions WHERE id = $1::text", [.text(id)])
        let json = stored.optionalBytes(0, 0).map { String(decoding: $0, as: UTF8.self) }
        #expect(json == #"{"claims":{"name":"Alice"},"subject":"alice"}"#)

        let (asBob, asAlice) = try await onOwnThread {
            let client = try nodeB.client(timeout: .seconds(30))
            let path = "/v1/sessions/\(id)?views=counter"
            let bob = try client.http.request(
                "GET", path, headers: [("Authorization", "Bearer \(token)"), ("X-User", "bob")])
            let alice = try client.http.request(
                "GET", path, headers: [("Authorization", "Bearer \(token)"), ("X-User", "alice")])
            return (bob, alice)
        }
        #expect(asBob.status == 403)
        #expect(asBob.problemType == "/problems/identity-mismatch")
        #expect(asAlice.status == 200)
        let held = nodeB.server.api.sessions.find(id: SessionKey(id), token: SessionKey(token))
        #expect(held?.store.identity == Identity(subject: "alice", claims: ["name": "Alice"]))
        try await nodeA.stop()
        try await nodeB.stop()
    }
}
