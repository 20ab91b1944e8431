import Foundation
import HTTPTestClient
import ReMVVMPersistence
import ReMVVMSQLite
import Testing

extension ServerDurabilityTests {
    var databasePath: String { dataDirectory + "/" + SQLiteSessionStorage.fileName }

    @Test func aGarbageDatabaseIsMovedAsideAndTheServerStarts() async throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        try Data(repeating: 0xA5, count: 16_384).write(to: URL(fileURLWithPath: databasePath))
        let server = try await ServerProcess.start(dataDirectory: dataDirectory)
        #expect(server.log.contains("is damaged"))
        #expect(server.log.contains("moved it aside"))
        let port = server.port
        try await onOwnThread {
            let client = try SessionClient(port: port)
            #expect(try client.http.request("GET", "/healthz").status == 200)
            let session = try client.createSession()
            #expect(try client.dispatch(session, Self.increase).status == 200)
        }
        try await server.stop()
        let files = try FileManager.default.contentsOfDirectory(atPath: dataDirectory)
        #expect(files.contains { $0.contains(".damaged-") })
    }

    @Test func aTruncatedDatabaseKeepsTheSessionsItStillHolds() async throws {
        let server = try await ServerProcess.start(dataDirectory: dataDirectory)
        let port = server.port
        let sessions = try await onOwnThread {
            let client = try SessionClient(port: port)
            let sessions = try (0..<40).map { _ in try client.createSession() }
            // About 1.5 KB of log per session, in names the example app takes (at most 64 characters).
            for session in sessions {
                for round in 0..<12 {
                    let name = String(repeating: round % 2 == 0 ? "n" : "m", count: 60)
                    let login = #"{"type":"user/login","payload":{"firstName":"\#(name)","lastName":"\#(name)"}}"#
                    #expect(try client.dispatch(session, login).status == 200)
                }
            }
            return sessions
        }
        try await server.stop()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: databasePath)[.size] as? Int)
        let handle = try #require(FileHandle(forWritingAtPath: databasePath))
        try handle.truncate(atOffset: UInt64(size * 2 / 3))
        try handle.close()

        let restarted = try await ServerProcess.start(dataDirectory: dataDirectory)
        #expect(restarted.log.contains("is damaged"))
        #expect(restarted.log.contains("of 40 sessions from the damaged database"))
        let restartedPort = restarted.port
        try await onOwnThread {
            let client = try SessionClient(port: restartedPort)
            let served = try sessions.filter { try client.read($0, views: "greeting").status == 200 }
            #expect(restarted.log.contains("sessions.restored=\(served.count)"))
            let session = try client.createSession()
            #expect(try client.dispatch(session, Self.increase).status == 200)
        }
        try await restarted.stop()
    }

    @Test func aStateThatNoLongerDecodesIsReportedSkippedAndDroppedOnRequest() async throws {
        let server = try await ServerProcess.start(dataDirectory: dataDirectory)
        let port = server.port
        let (broken, intact, before) = try await onOwnThread {
            let client = try SessionClient(port: port)
            let broken = try client.createSession()
            let intact = try client.createSession()
            for session in [broken, intact] { #expect(try client.dispatch(session, Self.increase).status == 200) }
            return (broken, intact, try Self.seen(client.read(intact)))
        }
        try await server.stop()
        // An upgrade changed the state's shape: the stored counter is now a string.
        let storage = try SQLiteSessionStorage(directory: dataDirectory)
        var snapshot = try #require(try storage.load(broken.id)?.snapshot)
        var state = try #require(try JSONSerialization.jsonObject(with: snapshot.state) as? [String: Any])
        state["counter"] = "one"
        snapshot.state = try JSONSerialization.data(withJSONObject: state)
        try storage.snapshot(snapshot, of: broken.id)
        storage.close()

        let restarted = try await ServerProcess.start(dataDirectory: dataDirectory)
        #expect(restarted.log.contains("cannot restore session \(broken.id)"))
        #expect(restarted.log.contains("no longer decodes: at 'counter'"))
        let restartedPort = restarted.port
        try await onOwnThread {
            let client = try SessionClient(port: restartedPort)
            #expect(try client.read(broken).status == 404)
            #expect(try Self.seen(client.read(intact)) == before)
        }
        try await restarted.stop()
        let kept = try SQLiteSessionStorage(directory: dataDirectory)
        #expect(try kept.load(broken.id) != nil)
        kept.close()

        let dropping = try await ServerProcess.start(
            dataDirectory: dataDirectory, arguments: ["--drop-undecodable-sessions"])
        #expect(dropping.log.contains("it was deleted"))
        try await dropping.stop()
        let dropped = try SQLiteSessionStorage(directory: dataDirectory)
        #expect(try dropped.list().map(\.id) == [intact.id])
        dropped.close()
    }
}
