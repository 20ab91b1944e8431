import Foundation
import HTTPTestClient
import PostgresTestSupport
import Testing

extension ServerDurabilityTests {
    /// The texts of a session's `chat` view, oldest first.
    static func chatTexts(_ client: SessionClient, _ session: TestSession) throws -> [String] {
        let body = try json(try client.read(session, views: "chat"))
        let chat = (body["views"] as? [String: Any])?["chat"] as? [String: Any]
        return (chat?["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
    }

    /// A post's answer shows the poster's own message (delivered once durable, in a version of its own), and names
    /// that version only once it is stored: after kill -9 and a restart, the session holds what the answer showed.
    @Test func aPostsAnswerShowsItsOwnMessageOnlyOnceThatIsStored() async throws {
        let server = try await ServerProcess.start(dataDirectory: dataDirectory)
        let port = server.port
        let (session, answered) = try await onOwnThread {
            let client = try SessionClient(port: port)
            let session = try client.createSession()
            let join = #"{"type":"chat/join","payload":{"room":"own","name":"Ada"}}"#
            #expect(try client.dispatch(session, join, views: "chat").status == 200)
            let answer = try client.dispatch(
                session, #"{"type":"chat/post","payload":{"text":"mine"}}"#, views: "chat")
            #expect(answer.status == 200)
            let body = try json(answer)
            let chat = (body["views"] as? [String: Any])?["chat"] as? [String: Any]
            #expect((chat?["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String } == ["mine"])
            return (session, body["version"] as? String ?? "")
        }
        try await onOwnThread { server.crash() }
        let restarted = try await ServerProcess.start(dataDirectory: dataDirectory)
        try await onOwnThread {
            let client = try SessionClient(port: restarted.port)
            let read = try client.read(session, views: "chat")
            #expect(read.header("Store-Version") == answered, "the restored session is at the version answered")
            #expect(try Self.chatTexts(client, session) == ["mine"])
        }
        try await restarted.stop()
    }

    /// A room's posts carry `Idempotency-Key`s; the server is killed (-9) in the middle of them, and every post is
    /// retried with its key after the restart. A message is written in its poster's transaction, with the key
    /// (the outbox), so a retry either replays (message stored) or posts it the first time (nothing stored):
    /// every member holds each message exactly once, all in one order.
    @Test func keyedPostsRetriedAfterACrashReachEveryMemberOnceInOneOrder() async throws {
        try await crashesMidPosts(arguments: [])
    }

    /// The same on PostgreSQL: a message takes its position in its poster's transaction.
    @Test(.enabled(if: TestDatabase.baseURL != nil, Comment(rawValue: TestDatabase.whyDisabled)))
    func keyedPostsRetriedAfterACrashReachEveryMemberOnceInOneOrderInPostgreSQL() async throws {
        let database = try TestDatabase()
        try await crashesMidPosts(arguments: ["--database-url", database.url, "--node-name", "node-1"])
    }

    private func crashesMidPosts(arguments: [String]) async throws {
        var server = try await ServerProcess.start(dataDirectory: dataDirectory, arguments: arguments)
        // Five rounds, each in a room of its own and killed at another point: a post caught between its
        // message and its commit shows up in one of them on a server that stores the message first.
        for (round, killAt) in [(0, 6), (1, 12), (2, 18), (3, 24), (4, 30)] {
            server = try await crashMidPosts(server, round: round, killAt: killAt, arguments: arguments)
        }
        try await server.stop()
    }

    /// One round: members join a room, posters post with keys, the server is killed after `killAt`
    /// acknowledgements, every post is retried after the restart; returns the restarted server.
    private func crashMidPosts(
        _ server: ServerProcess, round: Int, killAt: Int, arguments: [String]
    ) async throws -> ServerProcess {
        let port = server.port
        let posters = 5
        let each = 8  // 40 messages: fewer than the 50 the chat view and the topic keep.
        let text: @Sendable (Int, Int) -> String = { poster, index in "r\(round)-p\(poster)-\(index)" }
        let post: @Sendable (Int, Int) -> String = { poster, index in
            #"{"type":"chat/post","payload":{"text":"\#(text(poster, index))"}}"#
        }
        let key: @Sendable (Int, Int) -> (String, String) = { ("Idempotency-Key", "post \(text($0, $1))") }
        let members = try await onOwnThread {
            let client = try SessionClient(port: port)
            return try (0...posters).map { index in
                let session = try client.createSession()
                let join = #"{"type":"chat/join","payload":{"room":"crash-\#(round)","name":"m\#(index)"}}"#
                #expect(try client.dispatch(session, join, views: "chat").status == 200)
                return session
            }
        }
        let stop = Flag()
        let acknowledged = Count()
        async let sent: Void = withThrowingTaskGroup(of: Void.self) { group in
            for poster in 0..<posters {
                group.addTask {
                    try await onOwnThread {
                        guard let client = try? SessionClient(port: port) else { return }
                        for index in 0..<each where !stop.isSet {
                            let response = try? client.dispatch(
                                members[poster], post(poster, index), views: "chat", headers: [key(poster, index)])
                            guard response?.status == 200 else { return }  // The server is gone.
                            acknowledged.add()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        // Killed with posts in flight.
        let deadline = ContinuousClock.now + .seconds(15)
        while acknowledged.current < killAt, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        try await onOwnThread { server.crash() }
        stop.set()
        try await sent
        #expect(acknowledged.current >= killAt)

        let restarted = try await ServerProcess.start(dataDirectory: dataDirectory, arguments: arguments)
        let expected = Set((0..<posters).flatMap { poster in (0..<each).map { text(poster, $0) } })
        let heard = try await onOwnThread {
            let client = try SessionClient(port: restarted.port)
            for poster in 0..<posters {
                for index in 0..<each {
                    let retry = try client.dispatch(
                        members[poster], post(poster, index), views: "chat", headers: [key(poster, index)])
                    #expect(retry.status == 200, "\(retry.text)")
                    // The poster's own view gets its message once durable: before the answer, unless the session's
                    // inbox is busy with a catch-up after the restart, whose passes the server's pool runs.
                    let wanted = text(poster, index)
                    let until = ContinuousClock.now + .seconds(5)
                    var own = try Self.chatTexts(client, members[poster])
                    while !own.contains(wanted), ContinuousClock.now < until {
                        Thread.sleep(forTimeInterval: 0.01)
                        own = try Self.chatTexts(client, members[poster])
                    }
                    #expect(own.contains(wanted), "round \(round): \(wanted) not in \(own)")
                }
            }
            // Members hear the messages once they are durable, on the writer's side: wait for all of them.
            let deadline = ContinuousClock.now + .seconds(15)
            var heard: [[String]] = []
            repeat {
                heard = try members.map { try Self.chatTexts(client, $0) }
                if heard.allSatisfy({ $0.count >= expected.count }) { break }
                Thread.sleep(forTimeInterval: 0.02)
            } while ContinuousClock.now < deadline
            return heard
        }
        for (index, texts) in heard.enumerated() {
            let twice = Dictionary(grouping: texts, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
            #expect(twice.isEmpty, "round \(round): member \(index) heard \(twice) more than once")
            #expect(
                Set(texts) == expected, "round \(round): member \(index) misses \(expected.subtracting(texts).sorted())"
            )
            #expect(texts == heard[0], "round \(round): member \(index) heard another order than member 0")
        }
        return restarted
    }
}
