import Foundation
import HTTPTestClient

/// A session's credentials and the cursor it was created at.
struct TestSession: Sendable {
    let id: String
    let token: String
    let cursor: String

    var epoch: String { String(cursor[..<(cursor.lastIndex(of: ".") ?? cursor.endIndex)]) }
    var path: String { "/v1/sessions/\(id)" }
    var authorization: (String, String) { ("Authorization", "Bearer \(token)") }
}

/// The JSON calls the durability tests make, over one blocking keep-alive connection.
struct SessionClient {
    let http: TestHTTPClient

    init(port: UInt16, timeout: Duration = .seconds(5)) throws {
        http = try TestHTTPClient(port: port, timeout: timeout)
    }

    func createSession() throws -> TestSession {
        let response = try http.request("POST", "/v1/sessions")
        guard response.status == 201 else { throw ServerProcessError("create answered \(response.status)") }
        let body = try json(response)
        guard let id = body["id"] as? String, let token = body["token"] as? String,
            let version = body["version"] as? String
        else { throw ServerProcessError("create answered \(response.text)") }
        return TestSession(id: id, token: token, cursor: version)
    }

    /// POSTs `actions` (JSON); the response as it came.
    func dispatch(
        _ session: TestSession, _ actions: String, views: String = "counter", headers: [(String, String)] = []
    ) throws -> TestResponse {
        try http.request(
            "POST", "\(session.path)/actions?views=\(views)",
            headers: [session.authorization, ("Content-Type", "application/json")] + headers, body: Array(actions.utf8))
    }

    /// `GET` of the session's views.
    func read(_ session: TestSession, views: String = "") throws -> TestResponse {
        try http.request("GET", "\(session.path)?views=\(views)", headers: [session.authorization])
    }

    /// A long-poll from `since`.
    func poll(_ session: TestSession, since: String, wait: String = "2s", views: String = "counter") throws
        -> TestResponse
    {
        try http.request(
            "GET", "\(session.path)/poll?views=\(views)&since=\(since)&wait=\(wait)", headers: [session.authorization])
    }
}

/// A response body as a JSON object.
func json(_ response: TestResponse) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else {
        throw ServerProcessError("not a JSON object: \(response.text)")
    }
    return object
}

/// The number after the dot of a cursor `epoch.n`.
func versionNumber(_ cursor: String) -> UInt64? {
    cursor.split(separator: ".").last.flatMap { UInt64($0) }
}

/// The counter of a `{"views": {"counter": {"counter": "n"}}}` answer.
func counter(_ body: [String: Any]) -> Int? {
    ((body["views"] as? [String: Any])?["counter"] as? [String: Any])?["counter"].flatMap { $0 as? String }
        .flatMap { Int($0) }
}

/// A fresh temporary directory path (not created).
func temporaryPath(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("remvvm-\(name)-\(UUID().uuidString.prefix(8))").path
}
