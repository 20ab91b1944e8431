import Foundation
import HTTPTestClient
import ReMVVMPersistence
import ReMVVMSQLite
import Testing

extension ServerDurabilityTests {
    /// A dispatch's `Idempotency-Key` is stored with its commit: retried after `kill -9` and a
    /// restart, it gets the first answer and applies nothing again, however often the session was
    /// snapshotted since (snapshots compact the log, not the keys).
    @Test(arguments: [[], ["--snapshot-every", "1"]])
    func aKeyRetriedAfterACrashIsAnsweredAsBeforeAndAppliedOnce(arguments: [String]) async throws {
        let server = try await ServerProcess.start(dataDirectory: dataDirectory, arguments: arguments)
        let port = server.port
        let key = ("Idempotency-Key", "retry me 1")
        let (session, first) = try await onOwnThread {
            let client = try SessionClient(port: port)
            let session = try client.createSession()
            let first = try client.dispatch(session, Self.increase, headers: [key])
            #expect(first.status == 200)
            // Another dispatch after it: the retry must answer the first version, not the current one.
            #expect(try client.dispatch(session, Self.increase).status == 200)
            return (session, first)
        }
        try await onOwnThread { server.crash() }

        let restarted = try await ServerProcess.start(dataDirectory: dataDirectory, arguments: arguments)
        try await onOwnThread {
            let client = try SessionClient(port: restarted.port)
            let retry = try client.dispatch(session, Self.increase, headers: [key])
            #expect(retry.status == 200)
            // The same results and version; the views as they were at that version while the store still keeps
            // them, else none (the restarted store's history starts after it): the client reads from there.
            let (retried, answered) = (try json(retry), try json(first))
            #expect(retried["results"] as? [String] == answered["results"] as? [String])
            #expect(retried["version"] as? String == answered["version"] as? String)
            let views = retried["views"] as? [String: Any]
            #expect(views?.isEmpty == true || retry.body == first.body, "\(retry.text) after \(first.text)")
            #expect(retry.header("Store-Version") == "\(session.epoch).1")
            #expect(retry.header("Store-Version") == first.header("Store-Version"))
            let read = try json(try client.read(session, views: "counter"))
            #expect(counter(read) == 2)
            #expect(read["version"] as? String == "\(session.epoch).2")

            let reused = try client.dispatch(session, #"{"type":"counter/decrease"}"#, headers: [key])
            #expect(reused.status == 422)
            #expect(reused.text.contains("idempotency-key-reused"))
            #expect(counter(try json(try client.read(session, views: "counter"))) == 2)
        }
        try await restarted.stop()
    }

    /// 60 keyed dispatches asking for a chat view of tens of kilobytes: each stored key keeps the results and the
    /// version, not the views (once 60 copies of the view: 522 MB at 9 MB views). After a crash the replays
    /// answer the same status and version and apply nothing again; a row kept whole by an older server still
    /// replays byte for byte.
    @Test func keyedDispatchesOnALargeViewStoreSmallRowsAndReplayAfterACrash() async throws {
        let server = try await ServerProcess.start(dataDirectory: dataDirectory)
        let port = server.port
        let budget = 4096
        let (session, answers) = try await onOwnThread {
            let client = try SessionClient(port: port)
            let session = try client.createSession()
            let join = #"{"type":"chat/join","payload":{"room":"budget","name":"n"}}"#
            #expect(try client.dispatch(session, join).status == 200)
            let text = String(repeating: "a", count: 900)
            for _ in 0..<40 {
                #expect(
                    try client.dispatch(session, #"{"type":"chat/post","payload":{"text":"\#(text)"}}"#).status == 200)
            }
            var chatBytes = 0
            for _ in 0..<200 where chatBytes < 30_000 {
                chatBytes = try client.read(session, views: "chat").body.count
                if chatBytes < 30_000 { usleep(20_000) }
            }
            #expect(chatBytes >= 30_000, "the chat view never grew")
            var answers: [TestResponse] = []
            for index in 0..<60 {
                let response = try client.dispatch(
                    session, Self.increase, views: "chat,counter", headers: [("Idempotency-Key", "big \(index)")])
                #expect(response.status == 200)
                #expect(response.body.count > 30_000)
                answers.append(response)
            }
            return (session, answers)
        }
        try await onOwnThread { server.crash() }

        let stored = try SQLiteSessionStorage(directory: dataDirectory)
        let keys = try #require(try stored.load(session.id)).keys.filter { $0.key.hasPrefix("big ") }
        stored.close()
        #expect(keys.count == 60)
        let bytes = keys.reduce(0) { $0 + ($1.answer?.count ?? 0) }
        #expect(keys.allSatisfy { ($0.answer?.count ?? 0) <= budget }, "a stored answer kept its views")
        #expect(bytes <= 60 * 256, "the 60 stored answers hold \(bytes) bytes")

        let restarted = try await ServerProcess.start(dataDirectory: dataDirectory)
        try await onOwnThread {
            let client = try SessionClient(port: restarted.port)
            for index in [0, 31, 59] {
                let retry = try client.dispatch(
                    session, Self.increase, views: "chat,counter", headers: [("Idempotency-Key", "big \(index)")])
                #expect(retry.status == 200)
                #expect(retry.header("Store-Version") == answers[index].header("Store-Version"))
                let (retried, answered) = (try json(retry), try json(answers[index]))
                #expect(retried["results"] as? [String] == ["applied"])
                #expect(retried["version"] as? String == answered["version"] as? String)
            }
            #expect(counter(try json(try client.read(session, views: "counter"))) == 60, "a replay applied again")
        }
        #expect(try await restarted.stop() == 0)

        // An older server kept answers whole: such a row still replays as it was, views and all.
        let older = try SQLiteSessionStorage(directory: dataDirectory)
        try older.write([.answer(session: session.id, key: "big 7", answer: Data(answers[7].body))])
        older.close()
        let again = try await ServerProcess.start(dataDirectory: dataDirectory)
        try await onOwnThread {
            let client = try SessionClient(port: again.port)
            let retry = try client.dispatch(
                session, Self.increase, views: "chat,counter", headers: [("Idempotency-Key", "big 7")])
            #expect(retry.status == 200)
            #expect(retry.body == answers[7].body)
            #expect(counter(try json(try client.read(session, views: "counter"))) == 60)
        }
        #expect(try await again.stop() == 0)
    }
}
