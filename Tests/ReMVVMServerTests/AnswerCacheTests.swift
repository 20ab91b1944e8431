import Foundation
import MicroHTTP
import Synchronization
import Testing

@testable import ReMVVMServer

/// What a session keeps of its long-poll answers, driven through the API handler in process (no transport):
/// answers and patches are shared by the waiters of one version and dropped once a later version exists.
@Suite("Answer cache")
struct AnswerCacheTests {
    /// One session of an unstarted server, with what a client needs to call it.
    private struct Client {
        let server: StoreServer
        let id: String
        let token: String

        init() throws {
            server = StoreServer(TestApp.definition())
            let created = try Self.answer(server, HTTPRequest(method: "POST", path: "/v1/sessions"))
            try #require(created.status == 201)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])
            id = try #require(object["id"] as? String)
            token = try #require(object["token"] as? String)
        }

        var session: Session? { server.api.sessions.find(id: id, token: Substring(token)) }

        /// A dispatch that changes the login view: a login under a name of its own.
        ///
        /// The tests watch the login view because its JSON is longer than the shortest patch: the counter view
        /// is small enough to be answered whole, which needs no patch to cache.
        func changeRequest() -> HTTPRequest {
            let name = "Ada \(UInt64.random(in: 0...UInt64.max))"
            let body = Array(#"{"type":"user/login","payload":{"firstName":"\#(name)","lastName":"Lovelace"}}"#.utf8)
            return HTTPRequest(
                method: "POST", path: "/v1/sessions/\(id)/actions",
                headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"], body: body)
        }

        /// Dispatches ``changeRequest()``; returns the new version.
        func change() throws -> String {
            let answer = try Self.answer(server, changeRequest())
            try #require(answer.status == 200)
            return try #require(answer.headers["Store-Version"])
        }

        /// Parks a long-poll on the login view after `since`; `answered` receives its answer.
        func poll(since: String, format: String = "patch", answered: @escaping @Sendable (HTTPResponse) -> Void) {
            server.handle(
                HTTPRequest(
                    method: "GET", path: "/v1/sessions/\(id)/poll",
                    query: [("views", "login"), ("since", since), ("wait", "30s"), ("format", format)],
                    headers: ["Authorization": "Bearer \(token)"]),
                responder: Responder(onResponse: answered))
        }

        /// The answer to a request the handler answers before it returns.
        static func answer(_ server: StoreServer, _ request: HTTPRequest) throws -> (
            status: Int, headers: HTTPHeaders, body: [UInt8]
        ) {
            let answers = Mutex<[HTTPResponse]>([])
            server.handle(request, responder: Responder { response in answers.withLock { $0.append(response) } })
            let response = try #require(answers.withLock { $0.first }, "no answer during the handler")
            guard case .bytes(let body) = response.body else { throw CacheTestFailure.notBytes }
            return (response.status, response.headers, body)
        }
    }

    private enum CacheTestFailure: Error {
        case notBytes
    }

    @Test func waitersOfOneVersionShareOneAnswerAndOnlyTheNewestVersionIsKept() throws {
        let client = try Client()
        let session = try #require(client.session)
        var since = try client.change()
        for round in 1...100 {
            let bodies = Mutex<[[UInt8]]>([])
            for _ in 0..<3 {
                client.poll(since: since) { response in
                    if case .bytes(let body) = response.body, response.status == 200 {
                        bodies.withLock { $0.append(body) }
                    }
                }
            }
            since = try client.change()
            let answered = bodies.withLock { $0 }
            try #require(answered.count == 3, "round \(round): \(answered.count) of 3 polls answered")
            #expect(answered.allSatisfy { $0 == answered[0] })
            // One answer and one patch for the version the three waiters were woken to, whatever came before.
            #expect(session.answers.answerCount == 1, "round \(round)")
            #expect(session.answers.patchCount == 1, "round \(round)")
        }
    }

    /// A lone waiter's answer is sent as an ordinary response, which libmicrohttpd frees once it is sent; from the
    /// second waiter of the same answer on, they all share one response, built into libmicrohttpd's form once.
    @Test func anAnswerIsSharedFromItsSecondWaiterOn() throws {
        let client = try Client()
        let since = try client.change()
        for waiters in [1, 2, 5] {
            let responses = Mutex<[HTTPResponse]>([])
            let cursor = waiters == 1 ? since : try client.change()
            for _ in 0..<waiters {
                client.poll(since: cursor) { response in responses.withLock { $0.append(response) } }
            }
            _ = try client.change()
            let answered = responses.withLock { $0 }
            try #require(answered.count == waiters)
            #expect(answered.map(\.status) == Array(repeating: 200, count: waiters))
            #expect(!answered[0].isShared, "\(waiters) waiter(s): the first answer was shared")
            let later = answered.dropFirst().allSatisfy { $0.isShared }
            #expect(later, "\(waiters) waiters: a later answer was not shared")
            #expect(Set(answered.map { $0.headers["ETag"] ?? "" }).count == 1)
        }
    }

    /// A dispatch that wakes a long-poll answers with the header fields the poll's answer wrote for the same
    /// version: the same fields, in the same order, as a dispatch that wakes nobody.
    @Test func aDispatchThatWakesAPollAnswersWithTheSameHeaderFields() throws {
        let client = try Client()
        let alone = try Client.answer(client.server, client.changeRequest())
        let since = try #require(alone.headers["Store-Version"])
        let polled = Mutex<HTTPResponse?>(nil)
        client.poll(since: since) { response in polled.withLock { $0 = response } }

        let waking = try Client.answer(client.server, client.changeRequest())

        let poll = try #require(polled.withLock { $0 })
        let version = try #require(waking.headers["Store-Version"])
        #expect(version != since)
        #expect(Array(waking.headers).map(\.name) == Array(alone.headers).map(\.name))
        #expect(waking.headers == poll.headers)
        #expect(waking.headers["ETag"] == "\"\(version)\"")
        #expect(String(decoding: waking.body, as: UTF8.self).contains(#""version":"\#(version)""#))
    }

    @Test func waitersAskingInAnotherFormGetAnswersOfTheirOwnForTheSameVersion() throws {
        let client = try Client()
        let session = try #require(client.session)
        let since = try client.change()
        let bodies = Mutex<[String: [UInt8]]>([:])
        for format in ["patch", "full"] {
            client.poll(since: since, format: format) { response in
                if case .bytes(let body) = response.body { bodies.withLock { $0[format] = body } }
            }
        }
        _ = try client.change()
        let answered = bodies.withLock { $0 }
        #expect(answered.count == 2)
        #expect(answered["patch"] != answered["full"])
        #expect(session.answers.answerCount == 2)
        #expect(session.answers.patchCount == 1)  // Full views need no patch.
    }

    @Test func waitersFromDifferentCursorsGetAnswersAndPatchesOfTheirOwn() throws {
        let client = try Client()
        let session = try #require(client.session)
        let older = try client.change()
        let newer = try client.change()
        let newest = try client.change()
        let bodies = Mutex<[String: [UInt8]]>([:])
        // Both are behind, so both are answered at once, to the same version from different cursors; the
        // older is asked twice and must get the same answer again.
        for since in [older, newer, older] {
            client.poll(since: since) { response in
                if case .bytes(let body) = response.body, response.status == 200 {
                    bodies.withLock { $0[since] = body }
                }
            }
        }
        let answered = bodies.withLock { $0 }
        for since in [older, newer] {
            let body = try #require(answered[since], "no answer from \(since)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
            #expect(object["from"] as? String == since)
            #expect(object["to"] as? String == newest)
            let views = try #require(object["views"] as? [String: Any])
            #expect(views["login"] != nil, "from \(since): \(String(decoding: body, as: UTF8.self))")
        }
        #expect(session.answers.answerCount == 2)
        #expect(session.answers.patchCount == 2)
    }
}
