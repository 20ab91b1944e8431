import Foundation
import HTTPTestClient
import ReMVVMPersistence
import ReMVVMSQLite
import Testing

extension ServerDurabilityTests {
    @Test func aSessionThatExpiredWhileTheServerWasDownIsDeletedAndUnknownAfterTheRestart() async throws {
        // A TTL of 1 s: the stored copy expires 2 s after that (the margin it runs ahead by).
        let server = try await ServerProcess.start(dataDirectory: dataDirectory, arguments: ["--session-ttl", "1"])
        let port = server.port
        let created = ContinuousClock.now
        let idle = try await onOwnThread {
            let client = try SessionClient(port: port)
            let session = try client.createSession()
            #expect(try client.dispatch(session, Self.increase, headers: [("Idempotency-Key", "k1")]).status == 200)
            return session
        }
        // Crashed before its memory expired it: only the stored expiry is left to end it.
        try await onOwnThread { server.crash() }
        try await Task.sleep(until: created + .milliseconds(3_500))

        let restarted = try await ServerProcess.start(
            dataDirectory: dataDirectory, arguments: ["--session-ttl", "60"])
        #expect(restarted.log.contains("sessions.expired=1"), "\(restarted.log)")
        let kept = try await onOwnThread {
            let client = try SessionClient(port: restarted.port)
            let read = try client.read(idle)
            #expect(read.status == 404)
            #expect(read.text.contains("session-not-found"))
            // A retried dispatch with its key is refused the same way: nothing of the session is left.
            #expect(
                try client.dispatch(idle, Self.increase, headers: [("Idempotency-Key", "k1")]).status == 404)
            let kept = try client.createSession()
            #expect(try client.dispatch(kept, Self.increase).status == 200)
            return kept
        }
        #expect(try await restarted.stop() == 0)

        // A session within its TTL survives the next restart; the expired one is gone from the file.
        let again = try await ServerProcess.start(dataDirectory: dataDirectory, arguments: ["--session-ttl", "60"])
        try await onOwnThread {
            let client = try SessionClient(port: again.port)
            #expect(try client.read(kept).status == 200)
        }
        try await again.stop()
        let storage = try SQLiteSessionStorage(directory: dataDirectory)
        #expect(try storage.list().map(\.id) == [kept.id])
        #expect(try storage.load(idle.id) == nil)
        storage.close()
    }
}
