import Foundation
import HTTPTestClient
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
            #expect(retry.body == first.body, "\(retry.text) after \(first.text)")
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
}
