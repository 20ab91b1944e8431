import Foundation
import Glibc

/// The built `remvvm-server` as a child process on loopback, with its own data directory.
///
/// Restarting it on the port it had lets a client that keeps its URL find it again after a crash.
final class ServerProcess: @unchecked Sendable {
    // Safety: `process` is started in `init` and afterwards only signalled and polled, which Foundation's `Process`
    // allows from any thread; nothing else is mutable.
    private let process = Process()
    private let logPath: String
    /// The port it listens on.
    let port: UInt16
    /// Its root URL.
    let url: URL

    /// The executable, next to the test bundle (`swift build --build-tests` builds it).
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["REMVVM_SERVER_BINARY"] { return path }
        let bundle =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent("remvvm-server").path
    }

    /// Starts the server on `port` (0: a free one) with its sessions in `dataDirectory`, waiting at most `timeout`
    /// for its "listening on" line.
    init(dataDirectory: String, port: UInt16 = 0, arguments: [String] = [], timeout: Duration = .seconds(20)) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw TestFailure("no server executable at \(Self.binary): run `swift build --build-tests` first")
        }
        logPath = dataDirectory + ".log-\(UUID().uuidString.prefix(8))"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments =
            [
                "--port", "\(port)", "--data-dir", dataDirectory, "--public-dir", dataDirectory + ".public",
                "--threads", "2",
            ]
            + arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("REMVVM_") }
        process.standardOutput = log
        process.standardError = log
        try process.run()
        try log.close()
        let deadline = ContinuousClock.now + timeout
        var found: UInt16?
        while found == nil, ContinuousClock.now < deadline, process.isRunning {
            let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on http://127.0.0.1:") {
                found = UInt16(text[range.upperBound...].prefix { $0.isNumber })
            } else {
                usleep(20_000)  // Bounded by the deadline: the child's start line.
            }
        }
        guard let found else {
            if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
            throw TestFailure(
                "the server did not start:\n\((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")")
        }
        guard let url = URL(string: "http://127.0.0.1:\(found)/") else { throw TestFailure("no URL for port \(found)") }
        self.port = found
        self.url = url
    }

    /// Kills the server at once (`kill -9`), as a crash would, and waits until it is gone.
    func crash() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { crash() }
        try? FileManager.default.removeItem(atPath: logPath)
    }
}

/// A test's own failure with a message.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A fresh folder under the temporary directory, for one test's files.
func temporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "remvvm-client-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Runs `body` on a thread of its own: starting a server blocks, and must not hold a cooperative thread.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Waits at most `timeout` for the first element of `sequence` that satisfies `predicate`.
func first<S: AsyncSequence & Sendable>(
    _ sequence: S, within timeout: Duration = .seconds(30), where predicate: @escaping @Sendable (S.Element) -> Bool
) async throws -> S.Element where S.Element: Sendable {
    try await withThrowingTaskGroup(of: S.Element?.self) { group in
        group.addTask {
            for try await element in sequence where predicate(element) { return element }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let result = try await group.next(), let element = result else {
            throw TestFailure("no matching element within \(timeout)")
        }
        return element
    }
}

/// `body`'s result, or a failure when it takes longer than `timeout`.
func within<T: Sendable>(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let result = try await group.next(), let value = result else {
            throw TestFailure("no result within \(timeout)")
        }
        return value
    }
}
