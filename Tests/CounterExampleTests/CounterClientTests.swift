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
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("counter-client-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let url = "http://127.0.0.1:\(example.port)/"
            _ = try Self.run([url, "show"], in: folder)

            let output = folder.appendingPathComponent("follow.txt")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            let file = try FileHandle(forWritingTo: output)
            let process = Process()
            process.executableURL = Self.binary
            process.arguments = [url, "follow"]
            process.environment = ["COUNTER_CLIENT_DIR": folder.path, "COUNTER_CLIENT_FEED": "event-stream"]
            process.standardOutput = file
            process.standardError = file
            try process.run()
            defer {
                Glibc.kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                try? file.close()
            }
            // The first count comes from the stream's snapshot: from then on the stream is open and idle.
            let deadline = ContinuousClock.now + .seconds(30)
            while (try? String(contentsOf: output, encoding: .utf8))?.contains("count: 0") != true {
                guard ContinuousClock.now < deadline, process.isRunning else {
                    throw CounterProcessError("the follower showed no count within 30 s")
                }
                usleep(20_000)  // Bounded by the deadline: the child's first line.
            }
            let before = try Self.cpuSeconds(of: process.processIdentifier)
            usleep(2_000_000)
            let used = try Self.cpuSeconds(of: process.processIdentifier) - before
            #expect(used < 0.3, "an idle event stream used \(used) s of CPU in 2 s")
            // And it follows: a change reaches it.
            _ = try Self.run([url, "increase"], in: folder)
            while (try? String(contentsOf: output, encoding: .utf8))?.contains("count: 1") != true {
                guard ContinuousClock.now < deadline + .seconds(30) else {
                    throw CounterProcessError("the follower did not show the change within 30 s")
                }
                usleep(20_000)  // Bounded by the deadline: the child's next line.
            }
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
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("counter-client-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let url = "http://127.0.0.1:\(proxy.port)/"
            _ = try Self.run([url, "show"], in: folder)

            let output = folder.appendingPathComponent("follow.txt")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            let file = try FileHandle(forWritingTo: output)
            let process = Process()
            process.executableURL = Self.binary
            process.arguments = [url, "follow"]
            process.environment = ["COUNTER_CLIENT_DIR": folder.path, "COUNTER_CLIENT_FEED": "long-poll"]
            process.standardOutput = file
            process.standardError = file
            try process.run()
            defer {
                Glibc.kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                try? file.close()
            }
            try Self.waitFor("count: 0", in: output, of: process)
            try proxy.restart()
            // The poll failed with the proxy; the client retries after its first backoff (200 ms, at most 250).
            usleep(2_000_000)
            let before = try Self.cpuSeconds(of: process.processIdentifier)
            usleep(2_000_000)
            let used = try Self.cpuSeconds(of: process.processIdentifier) - before
            #expect(used < 0.3, "a parked long-poll used \(used) s of CPU in 2 s after the reconnect")
            _ = try Self.run([url, "increase"], in: folder)
            try Self.waitFor("count: 1", in: output, of: process)
        }
    }

    /// Waits at most 30 s until `output` of the running `process` holds `text`.
    private static func waitFor(_ text: String, in output: URL, of process: Process) throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while (try? String(contentsOf: output, encoding: .utf8))?.contains(text) != true {
            guard ContinuousClock.now < deadline, process.isRunning else {
                throw CounterProcessError("no '\(text)' within 30 s")
            }
            usleep(20_000)  // Bounded by the deadline: the child's next line.
        }
    }

    /// The user and system CPU time of process `pid` so far, from /proc.
    private static func cpuSeconds(of pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        guard let end = stat.lastIndex(of: ")") else { throw CounterProcessError("no /proc/\(pid)/stat") }
        // After ") ": the state is field 3; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(end, offsetBy: 2)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw CounterProcessError("cannot read the CPU time in /proc/\(pid)/stat")
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private static var binary: URL {
        URL(fileURLWithPath: CounterProcess.binary).deletingLastPathComponent().appendingPathComponent("counter-client")
    }

    /// Runs `counter-client` with `arguments` and its files in `folder`; answers what it printed. At most 30 s.
    private static func run(_ arguments: [String], in folder: URL) throws -> String {
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
