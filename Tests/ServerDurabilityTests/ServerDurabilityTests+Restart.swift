import Foundation
import HTTPTestClient
import ReMVVMPersistence
import ReMVVMSQLite
import Testing

extension ServerDurabilityTests {
    /// What a session looked like: every view, byte for byte, and its version headers.
    struct Seen: Equatable {
        let body: [UInt8]
        let version: String?
    }

    static let scripts: [[String]] = [
        [increase, increase, #"{"type":"counter/set","payload":{"value":41}}"#],
        [#"{"type":"user/login","payload":{"firstName":"Ada","lastName":"Lovelace"}}"#, #"{"type":"profile/show"}"#],
        [#"[{"type":"counter/increase"},{"type":"user/login","payload":{"firstName":"","lastName":"X"}}]"#],
        [#"{"type":"quote/load","payload":{"category":"wisdom"}}"#],
        [],
    ]

    @Test func aCleanRestartKeepsEverySessionByteForByte() async throws {
        let server = try await ServerProcess.start(dataDirectory: dataDirectory, arguments: ["--snapshot-every", "2"])
        let port = server.port
        let (sessions, before, deleted) = try await onOwnThread {
            let client = try SessionClient(port: port)
            let sessions = try Self.scripts.map { _ in try client.createSession() }
            for (session, script) in zip(sessions, Self.scripts) {
                for actions in script { #expect(try client.dispatch(session, actions).status == 200) }
            }
            // Let the quote effect finish, so that nothing is in flight at shutdown.
            let quote = try client.poll(sessions[3], since: "\(sessions[3].epoch).1", views: "quote")
            #expect(quote.text.contains("text"))
            let deleted = try client.createSession()
            #expect(try client.http.request("DELETE", deleted.path, headers: [deleted.authorization]).status == 204)
            return (sessions, try sessions.map { try Self.seen(client.read($0)) }, deleted)
        }
        #expect(try await server.stop() == 0)
        #expect(server.log.contains("durable storage closed"))

        let restarted = try await ServerProcess.start(
            dataDirectory: dataDirectory, arguments: ["--snapshot-every", "2"])
        #expect(restarted.log.contains("sessions.restored=\(Self.scripts.count)"))
        try await onOwnThread {
            let client = try SessionClient(port: restarted.port)
            let after = try sessions.map { try Self.seen(client.read($0)) }
            #expect(after == before)
            #expect(try client.read(deleted).status == 404)
            // A client at the restored version continues with patches.
            for (session, seen) in zip(sessions, after) {
                let cursor = try #require(seen.version)
                #expect(try client.dispatch(session, Self.increase).status == 200)
                let poll = try json(try client.poll(session, since: cursor))
                #expect(poll["reset"] == nil && poll["from"] as? String == cursor, "\(poll)")
            }
        }
        try await restarted.stop()
        let storage = try SQLiteSessionStorage(directory: dataDirectory)
        #expect(try storage.list().map(\.id).sorted() == sessions.map(\.id).sorted())
        storage.close()
    }

    @Test func eventStreamsSendEachDurableVersionInOrder() async throws {
        let server = try await ServerProcess.start(dataDirectory: dataDirectory)
        let port = server.port
        try await onOwnThread {
            let client = try SessionClient(port: port)
            let session = try client.createSession()
            let events = try TestHTTPClient(port: port)
            let opened = try events.openEventStream(
                "\(session.path)/events?views=counter", headers: [session.authorization])
            #expect(opened.status == 200)
            #expect(try events.readEvent()?.event == "snapshot")
            for _ in 1...5 { #expect(try client.dispatch(session, Self.increase).status == 200) }
            var ids: [String] = []
            while ids.last != "\(session.epoch).5", let event = try events.readEvent() {
                #expect(event.event == "patch")
                ids.append(event.id ?? "")
            }
            #expect(ids.compactMap(versionNumber) == ids.compactMap(versionNumber).sorted())
            #expect(ids.last == "\(session.epoch).5")
        }
        try await server.stop()
    }

    @Test func expiredSessionsAreRemovedFromDisk() async throws {
        let server = try await ServerProcess.start(dataDirectory: dataDirectory, arguments: ["--session-ttl", "1"])
        let port = server.port
        let session = try await onOwnThread { try SessionClient(port: port).createSession() }
        let storage = try SQLiteSessionStorage(directory: dataDirectory)
        #expect(try storage.load(session.id) != nil)
        let deadline = ContinuousClock.now + .seconds(8)
        while try storage.load(session.id) != nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try storage.load(session.id) == nil)
        storage.close()
        try await server.stop()
    }

    static func seen(_ response: TestResponse) throws -> Seen {
        guard response.status == 200 else { throw ServerProcessError("read answered \(response.status)") }
        return Seen(body: response.body, version: response.header("Store-Version"))
    }
}
