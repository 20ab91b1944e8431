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

    /// An idle follower on an event stream uses next to no CPU. With FoundationNetworking it used most of a core
    /// (libcurl's write interest from connecting outlived the connect: EventStream's warm-up request avoids it).
    /// Measured over 2 s of the child's own CPU time, against 1.8 s before.
    @Test func anIdleEventStreamFollowerUsesNextToNoCPU() async throws {
        try await onOwnThread {
            let example = try CounterProcess()
            let follower = try Follower(url: "http://127.0.0.1:\(example.port)/", feed: "event-stream")
            // The first count comes from the stream's snapshot: from then on the stream is open and idle.
            try follower.waitFor("count: 0")
            let used = try follower.cpuSeconds(over: 2)
            #expect(used < 0.3, "an idle event stream used \(used) s of CPU in 2 s")
            // And it follows: a change reaches it.
            _ = try Self.run([follower.url, "increase"], in: follower.folder)
            try follower.waitFor("count: 1")
        }
    }

    /// A long-poll follower whose proxy was killed and started again polls on a warmed connection: with
    /// FoundationNetworking, a poll waiting on a fresh connection kept a thread busy (1.4 to 1.9 s of CPU in 2 s),
    /// so the client sends a short request first after a reconnect.
    @Test(.enabled(if: ProxyProcess.binary != nil, "nginx is not installed"))
    func aLongPollFollowerReconnectedThroughItsProxyUsesNextToNoCPU() async throws {
        try await onOwnThread {
            let example = try CounterProcess()
            let proxy = try ProxyProcess.start(upstream: example.port)
            let follower = try Follower(url: "http://127.0.0.1:\(proxy.port)/", feed: "long-poll")
            try follower.waitFor("count: 0")
            try proxy.restart()
            // The poll failed with the proxy; the client retries after its first backoff (200 ms, at most 250).
            usleep(2_000_000)
            let used = try follower.cpuSeconds(over: 2)
            #expect(used < 0.3, "a parked long-poll used \(used) s of CPU in 2 s after the reconnect")
            _ = try Self.run([follower.url, "increase"], in: follower.folder)
            try follower.waitFor("count: 1")
        }
    }

    /// `counter-client follow` running with `feed`, its files in a folder of its own (after a first `show` made the
    /// session) and its output in a file; killed and removed with it.
    private final class Follower {
        let url: String
        let folder: URL
        private let output: URL
        private let file: FileHandle
        private let process = Process()

        init(url: String, feed: String) throws {
            self.url = url
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("counter-client-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            _ = try CounterClientTests.run([url, "show"], in: folder)
            output = folder.appendingPathComponent("follow.txt")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            file = try FileHandle(forWritingTo: output)
            process.executableURL = CounterClientTests.binary
            process.arguments = [url, "follow"]
            process.environment = ["COUNTER_CLIENT_DIR": folder.path, "COUNTER_CLIENT_FEED": feed]
            process.standardOutput = file
            process.standardError = file
            try process.run()
        }

        /// Waits at most 30 s until the follower printed `text`.
        func waitFor(_ text: String) throws {
            let deadline = ContinuousClock.now + .seconds(30)
            while (try? String(contentsOf: output, encoding: .utf8))?.contains(text) != true {
                guard ContinuousClock.now < deadline, process.isRunning else {
                    throw CounterProcessError("no '\(text)' within 30 s")
                }
                usleep(20_000)  // Bounded by the deadline: the child's next line.
            }
        }

        /// The CPU the follower uses over the next `seconds`.
        func cpuSeconds(over seconds: Int) throws -> Double {
            let before = try CounterClientTests.cpuSeconds(of: process.processIdentifier)
            usleep(useconds_t(seconds * 1_000_000))
            return try CounterClientTests.cpuSeconds(of: process.processIdentifier) - before
        }

        deinit {
            if process.isRunning {
                Glibc.kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
            try? file.close()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// The user and system CPU time of process `pid` so far, from /proc.
    fileprivate static func cpuSeconds(of pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        guard let end = stat.lastIndex(of: ")") else { throw CounterProcessError("no /proc/\(pid)/stat") }
        // After ") ": the state is field 3; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(end, offsetBy: 2)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw CounterProcessError("cannot read the CPU time in /proc/\(pid)/stat")
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    fileprivate static var binary: URL {
        URL(fileURLWithPath: CounterProcess.binary).deletingLastPathComponent().appendingPathComponent("counter-client")
    }

    /// Runs `counter-client` with `arguments` and its files in `folder`; answers what it printed. At most 30 s.
    fileprivate static func run(_ arguments: [String], in folder: URL) throws -> String {
        let output = folder.appendingPathComponent("output.txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let file = try FileHandle(forWritingTo: output)
        let process = Process()
        process.executableURL = Self.binary
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
