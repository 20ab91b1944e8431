import Foundation
import HTTPTestClient
import ReMVVMPersistence
import ReMVVMSQLite
import Testing

/// `remvvm-server verify-upgrade` as an operator runs it, on the SQLite file a stopped server left: it passes on
/// what this build wrote, and exits 1 naming the session whose log no longer replays to its snapshot.
@Suite(.serialized) final class VerifyUpgradeCommandTests {
    let dataDirectory = temporaryPath("verify-upgrade")

    deinit {
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    /// Runs `remvvm-server verify-upgrade` with `arguments`; its exit status, standard output and standard error.
    func verify(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        try await onOwnThread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: ServerProcess.binary)
            process.arguments = ["verify-upgrade"] + arguments
            process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("REMVVM_") }
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            let text = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (
                process.terminationStatus, String(decoding: data, as: UTF8.self), String(decoding: text, as: UTF8.self)
            )
        }
    }

    @Test func itPassesOnWhatThisBuildWroteAndFailsNamingADivergentSession() async throws {
        let server = try await ServerProcess.start(dataDirectory: dataDirectory)
        let port = server.port
        let sessions = try await onOwnThread {
            let client = try SessionClient(port: port)
            let sessions = try (0..<2).map { _ in try client.createSession() }
            for session in sessions {
                for _ in 0..<3 { #expect(try client.dispatch(session, #"{"type":"counter/increase"}"#).status == 200) }
                let set = #"{"type":"counter/set","payload":{"value":9}}"#
                #expect(try client.dispatch(session, set).status == 200)
            }
            return sessions
        }
        #expect(try await server.stop() == 0)

        let passing = try await verify(["--data-dir", dataDirectory, "--json"])
        #expect(passing.status == 0, "\(passing.output) \(passing.errors)")
        let report = try JSONDecoder().decode(UpgradeReport.self, from: Data(passing.output.utf8))
        #expect(report.passed)
        #expect(report.matched == 2)
        #expect(report.replayed == 8)

        // The log says 8 where the state the stopped server snapshotted says 9: a reducer that changed meaning.
        let storage = try SQLiteSessionStorage(directory: dataDirectory)
        let changed = Data(#"[{"type":"counter/set","payload":{"value":8}}]"#.utf8)
        try storage.append([StoredCommit(version: 4, actions: changed)], to: sessions[1].id)
        storage.close()
        let failing = try await verify(["--data-dir", dataDirectory])
        #expect(failing.status == 1)
        #expect(failing.output.hasPrefix("FAILED: 2 of 2 sessions rebuilt"), "\(failing.output)")
        #expect(failing.output.contains("divergent session \(sessions[1].id): first at version 1"), "\(failing.output)")
        #expect(!failing.output.contains(sessions[0].id))
    }

    @Test func aMissingDatabaseIsAnErrorNotAPass() async throws {
        let missing = try await verify(["--sqlite-file", dataDirectory + "/nothing.sqlite"])
        #expect(missing.status != 0)
        #expect(missing.output.isEmpty)
        #expect(missing.errors.contains("cannot read the stored sessions"), "\(missing.errors)")
    }
}
