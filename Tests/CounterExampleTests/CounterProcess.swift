import Foundation
import Glibc

/// The built `counter-example` running as a child process on a free loopback port; its output goes to a log file.
final class CounterProcess: @unchecked Sendable {
    // Safety: `process` is started in `init` and afterwards only signalled and polled, which Foundation's `Process`
    // allows from any thread; nothing else is mutable.
    private let process = Process()
    private let logPath = FileManager.default.temporaryDirectory
        .appendingPathComponent("counter-example-\(UUID().uuidString.prefix(8)).log").path
    /// The port it listens on.
    let port: UInt16

    /// The executable, next to the test bundle (`swift build` builds it with the tests).
    static var binary: String {
        let bundle =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent("counter-example").path
    }

    /// Starts the example on port 0 (a free one) and waits, at most `timeout`, for its "listening on" line.
    init(timeout: Duration = .seconds(15)) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw CounterProcessError("no executable at \(Self.binary): run `swift build` first")
        }
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["0"]
        process.standardOutput = log
        process.standardError = log
        try process.run()
        try log.close()
        let deadline = ContinuousClock.now + timeout
        var found: UInt16?
        // A bounded wait for a real event: the child's start line.
        while found == nil, ContinuousClock.now < deadline, process.isRunning {
            let text = Self.read(logPath)
            if let range = text.range(of: "listening on http://127.0.0.1:") {
                found = UInt16(text[range.upperBound...].prefix { $0.isNumber })
            } else {
                usleep(20_000)
            }
        }
        guard let found else {
            if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
            throw CounterProcessError("the example did not start:\n\(Self.read(logPath))")
        }
        port = found
    }

    /// Runs the example with `arguments` until it exits (at most `timeout`): its status and everything it printed.
    static func run(_ arguments: [String], timeout: Duration = .seconds(15)) throws -> (status: Int32, output: String) {
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { usleep(10_000) }  // Bounded: the child's exit.
        guard !process.isRunning else {
            Glibc.kill(process.processIdentifier, SIGKILL)
            throw CounterProcessError("the example did not exit within \(timeout)")
        }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, output)
    }

    /// Everything it printed so far.
    var log: String { Self.read(logPath) }

    private static func read(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// Sends `signal` and waits, at most `timeout`, for the exit; returns how it ended.
    func stop(with signal: Int32 = SIGTERM, timeout: Duration = .seconds(15)) throws -> (
        Process.TerminationReason, Int32
    ) {
        Glibc.kill(process.processIdentifier, signal)
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { usleep(10_000) }  // Bounded: the child's exit.
        guard !process.isRunning else {
            Glibc.kill(process.processIdentifier, SIGKILL)
            throw CounterProcessError("the example did not stop within \(timeout) of signal \(signal)")
        }
        return (process.terminationReason, process.terminationStatus)
    }

    deinit {
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: logPath)
    }
}

struct CounterProcessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
