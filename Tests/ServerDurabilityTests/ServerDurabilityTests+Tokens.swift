import Foundation
import HTTPTestClient
import Testing

extension ServerDurabilityTests {
    /// Tokens are stored as SHA-256 hashes: no file of the data directory holds one, and a restarted
    /// server still authenticates the session with it (and with nothing else).
    @Test func storedFilesHoldNoTokenAndAuthenticationSurvivesARestart() async throws {
        let server = try await ServerProcess.start(dataDirectory: dataDirectory)
        let port = server.port
        let session = try await onOwnThread {
            let client = try SessionClient(port: port)
            let session = try client.createSession()
            #expect(try client.dispatch(session, Self.increase).status == 200)
            return session
        }
        try await onOwnThread { server.crash() }
        let files = try FileManager.default.contentsOfDirectory(atPath: dataDirectory)
        #expect(files.contains { $0.hasSuffix(".sqlite") })
        for file in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: dataDirectory + "/" + file))
            #expect(bytes.firstRange(of: Data(session.token.utf8)) == nil, "\(file) holds the token")
        }

        let restarted = try await ServerProcess.start(dataDirectory: dataDirectory)
        try await onOwnThread {
            let client = try SessionClient(port: restarted.port)
            let wrong = TestSession(id: session.id, token: String(session.token.reversed()), cursor: session.cursor)
            #expect(try client.read(wrong).status == 404)
            let read = try client.read(session, views: "counter")
            #expect(read.status == 200)
            #expect(counter(try json(read)) == 1)
            #expect(try client.dispatch(session, Self.increase).status == 200)
        }
        try await restarted.stop()
    }
}
