import Foundation
import Glibc
import HTTPTestClient
import Testing

/// `counter-client` against the built `counter-example`: the shared types over HTTP, from the command line.
@Suite struct CounterClientTests {
    @Test func theClientSendsReadsAndResumesItsSession() async throws {
        try await onOwnThread {
            let example = try CounterProcess()
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("counter-client-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let url = "http://127.0.0.1:\(example.port)/"

            let first = try Self.run([url, "increase", "set", "41", "set", "-1", "show"], in: folder)
            #expect(first.contains("counter/increase: applied"))
            #expect(first.contains("counter/set: blocked (the count cannot go below zero)"))
            #expect(first.hasSuffix("count: 41\n"), "\(first)")
            // A second run resumes the stored session.
            #expect(try Self.run([url, "increase", "show"], in: folder).hasSuffix("count: 42\n"))
        }
    }

    /// Runs `counter-client` with `arguments` and its files in `folder`; answers what it printed. At most 30 s.
    private static func run(_ arguments: [String], in folder: URL) throws -> String {
        let binary = URL(fileURLWithPath: CounterProcess.binary).deletingLastPathComponent()
            .appendingPathComponent("counter-client")
        let output = folder.appendingPathComponent("output.txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let file = try FileHandle(forWritingTo: output)
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = ["COUNTER_CLIENT_DIR": folder.path]
        process.standardOutput = file
        process.standardError = file
        try process.run()
        let deadline = ContinuousClock.now + .seconds(30)
        while process.isRunning, ContinuousClock.now < deadline { usleep(10_000) }  // Bounded: the child's exit.
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try file.close()
        let text = try String(contentsOf: output, encoding: .utf8)
        guard process.terminationStatus == 0 else { throw CounterProcessError("counter-client failed:\n\(text)") }
        return text
    }
}
