import Foundation
import Glibc
import HTTPTestClient

/// The built `remvvm-server` executable running as a child process on a free loopback port,
/// with its own data directory; its standard error goes to a log file the test can read.
final class ServerProcess: @unchecked Sendable {
    // Safety: `process` is started in `init` and afterwards only signalled and polled, which
    // Foundation's `Process` allows from any thread; nothing else is mutable.
    private let process = Process()
    /// Where the server's log lines go.
    let logPath: String
    /// The port it listens on.
    let port: UInt16

    /// The executable: `REMVVM_SERVER_BINARY`, or `remvvm-server` next to the test bundle.
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["REMVVM_SERVER_BINARY"] { return path }
        let bundle =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent("remvvm-server").path
    }

    /// Starts the server on `dataDirectory` with `arguments` and waits (at most `timeout`) until it listens.
    init(dataDirectory: String, arguments: [String] = [], timeout: Duration = .seconds(15)) throws {
        let binary = Self.binary
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw ServerProcessError("no server executable at \(binary): run `swift build` first")
        }
        logPath = dataDirectory + ".log-\(UUID().uuidString.prefix(8))"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.executableURL = URL(fileURLWithPath: binary)
        // The tests create their sessions from one address faster than a client may (the abuse suite tests that).
        process.arguments =
            ["--port", "0", "--data-dir", dataDirectory, "--public-dir", dataDirectory + ".public", "--threads", "2"]
            + ["--session-creation-burst", "0"] + arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("REMVVM_") }
        process.standardOutput = log
        process.standardError = log
        try process.run()
        try log.close()
        let deadline = ContinuousClock.now + timeout
        var found: UInt16?
        while found == nil, ContinuousClock.now < deadline, process.isRunning {
            found = Self.listeningPort(in: (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")
            if found == nil { usleep(20_000) }
        }
        guard let found else {
            if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
            let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            throw ServerProcessError("the server did not start:\n\(text)")
        }
        port = found
    }

    /// Everything the server logged so far.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Kills the server at once (`kill -9`), as a crash would, and waits until it is gone.
    func crash() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Sends SIGTERM and waits (at most `timeout`) for a clean exit; returns the exit status.
    @discardableResult
    func terminate(timeout: Duration = .seconds(15)) throws -> Int32 {
        process.terminate()
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
        guard !process.isRunning else {
            crash()
            throw ServerProcessError("the server did not stop within \(timeout) of SIGTERM")
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { crash() }
        try? FileManager.default.removeItem(atPath: logPath)
    }

    /// The port in the "listening on http://127.0.0.1:PORT/" line.
    private static func listeningPort(in log: String) -> UInt16? {
        guard let range = log.range(of: "listening on http://127.0.0.1:") else { return nil }
        return UInt16(log[range.upperBound...].prefix { $0.isNumber })
    }
}

struct ServerProcessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension ServerProcess {
    /// Starts a server on a thread of its own: waiting for it must not hold one of the few
    /// cooperative threads that other tests' effects run on.
    static func start(dataDirectory: String, arguments: [String] = []) async throws -> ServerProcess {
        try await onOwnThread { try ServerProcess(dataDirectory: dataDirectory, arguments: arguments) }
    }

    /// Stops the server with SIGTERM, waiting on a thread of its own; returns the exit status.
    @discardableResult
    func stop() async throws -> Int32 {
        try await onOwnThread { try self.terminate() }
    }
}
