import Foundation
import ReMVVMPostgres

#if canImport(Glibc)
    import Glibc
#endif

/// A PostgreSQL server of a test's own (its own data folder and free port on 127.0.0.1), for what must not touch the
/// server the other tests share: freezing every one of its processes with SIGSTOP. As root it runs as `postgres`, as
/// scripts/lib/postgres.sh does. Stopped and removed by ``stop()`` (or at deinit).
package final class PrivatePostgres: Sendable {
    /// The server's programs (`initdb`, `pg_ctl`), the newest installed; nil when PostgreSQL is not installed.
    package static let binaries: String? = {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        guard let newest = versions.compactMap({ Int($0) }).max() else { return nil }
        let bin = "\(root)/\(newest)/bin"
        return FileManager.default.isExecutableFile(atPath: bin + "/initdb") ? bin : nil
    }()

    /// Whether a private server can be started here.
    package static var isAvailable: Bool { binaries != nil }

    /// The data folder's parent.
    package let directory: String
    /// The port it listens on.
    package let port: Int
    /// The URL of its `remvvm` database.
    package var url: String { "postgresql://postgres@127.0.0.1:\(port)/remvvm" }

    /// Creates the data folder, starts the server (waiting at most a minute) and creates the database `remvvm`.
    package init() throws {
        guard let binaries = Self.binaries else { throw TestDatabaseError("PostgreSQL is not installed") }
        directory = NSTemporaryDirectory() + "remvvm-private-postgres-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if getuid() == 0 { try Self.run("/usr/bin/chown", ["postgres", directory]) }
        port = try Self.freePort()
        try Self.asOwner(
            "\(binaries)/initdb", ["-D", "\(directory)/data", "-U", "postgres", "--auth=trust", "-E", "UTF8"])
        try Self.asOwner(
            "\(binaries)/pg_ctl",
            [
                "-D", "\(directory)/data", "-l", "\(directory)/server.log", "-w", "-t", "60", "-o",
                "-c listen_addresses=127.0.0.1 -p \(port) -c unix_socket_directories=\(directory) -c fsync=on",
                "start",
            ])
        let admin = try PostgresConnection(
            url: "postgresql://postgres@127.0.0.1:\(port)/postgres", applicationName: "remvvm-tests",
            timeouts: TestDatabase.timeouts)
        try admin.execute("CREATE DATABASE remvvm")
    }

    /// The postmaster and every process it started.
    package func processes() throws -> [pid_t] {
        let pidFile = try String(contentsOfFile: "\(directory)/data/postmaster.pid", encoding: .utf8)
        guard let line = pidFile.split(separator: "\n").first, let postmaster = pid_t(line) else {
            throw TestDatabaseError("no postmaster pid in \(directory)/data/postmaster.pid")
        }
        let children = try Self.output("/usr/bin/pgrep", ["-P", "\(postmaster)"])
        return [postmaster] + children.split(separator: "\n").compactMap { pid_t($0) }
    }

    /// Sends `signal` (SIGSTOP, SIGCONT) to the postmaster and every process it started; returns how many.
    @discardableResult
    package func signal(_ signal: Int32) throws -> Int {
        let all = try processes()
        for pid in all { _ = kill(pid, signal) }
        return all.count
    }

    /// Stops the server (resuming it first, should it be frozen) and removes its folder. Idempotent.
    package func stop() {
        guard FileManager.default.fileExists(atPath: "\(directory)/data"), let binaries = Self.binaries else { return }
        _ = try? signal(SIGCONT)
        try? Self.asOwner("\(binaries)/pg_ctl", ["-D", "\(directory)/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }

    private static func asOwner(_ program: String, _ arguments: [String]) throws {
        if getuid() == 0 {
            try run("/usr/sbin/runuser", ["-u", "postgres", "--", program] + arguments)
        } else {
            try run(program, arguments)
        }
    }

    private static func run(_ program: String, _ arguments: [String]) throws {
        _ = try output(program, arguments)
    }

    /// Runs `program` and returns its standard output; fails unless it exits with 0. With posix_spawn and waitpid
    /// rather than Foundation's `Process`, whose `waitUntilExit` was seen never to return for `runuser` here.
    private static func output(_ program: String, _ arguments: [String]) throws -> String {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw TestDatabaseError("cannot make a pipe") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        posix_spawn_file_actions_addclose(&actions, pipe[1])
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, program, &actions, nil, argv, environ)
        close(pipe[1])
        defer { close(pipe[0]) }
        guard spawned == 0 else { throw TestDatabaseError("cannot start \(program)") }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = read(pipe[0], &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        guard status == 0 else {
            throw TestDatabaseError("\(program) \(arguments.joined(separator: " ")) failed (status \(status))")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A free TCP port on 127.0.0.1 (bound to port 0, read back, released).
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestDatabaseError("cannot open a socket") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(socket, raw, length) == 0 && getsockname(socket, raw, &length) == 0
            }
        }
        guard bound else { throw TestDatabaseError("cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
