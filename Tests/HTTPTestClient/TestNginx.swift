import Foundation
import Glibc

/// nginx on a free loopback port, as a plain foreground process the test owns (no master, no daemon), in front of
/// servers the test started: each test gives the `location` blocks that say where requests go.
public final class TestNginx: @unchecked Sendable {
    // Safety: `process` is replaced only by `restart()`, which a test calls from one thread; Foundation's `Process`
    // may be signalled and waited for from any thread; the rest is immutable.
    private var process = Process()
    private let configuration: URL
    /// nginx's folder: its configuration, logs and temporary files, removed with it.
    public let folder: URL
    /// The port nginx listens on.
    public let port: UInt16

    /// The nginx binary, if one is installed.
    public static let binary: String? = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Starts nginx with `locations` (nginx `location` blocks) in its one `server`, keep-alive to clients and
    /// buffering off as deployed; waits until it accepts connections.
    public init(locations: String) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        port = try Self.freePort()
        let path = folder.path
        configuration = folder.appendingPathComponent("nginx.conf")
        try """
        daemon off;
        master_process off;
        pid \(path)/nginx.pid;
        error_log \(path)/error.log notice;
        events { worker_connections 256; }
        http {
            access_log \(path)/access.log;
            client_body_temp_path \(path)/tmp/body;
            proxy_temp_path \(path)/tmp/proxy;
            fastcgi_temp_path \(path)/tmp/fastcgi;
            uwsgi_temp_path \(path)/tmp/uwsgi;
            scgi_temp_path \(path)/tmp/scgi;
            server {
                listen 127.0.0.1:\(port);
                proxy_http_version 1.1;
                proxy_set_header Connection "";
                proxy_buffering off;
                proxy_request_buffering off;
                proxy_read_timeout 75s;
                \(locations)
            }
        }
        """.write(to: configuration, atomically: true, encoding: .utf8)
        try start()
    }

    /// nginx's URL.
    public var url: URL {
        URL(string: "http://127.0.0.1:\(port)/") ?? URL(fileURLWithPath: "/")
    }

    /// The access log: which requests nginx passed on, with their statuses.
    public var accessLog: String {
        (try? String(contentsOf: folder.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
    }

    /// Kills nginx (SIGKILL, every client connection lost) and starts it again on the same port.
    public func restart() throws {
        kill()
        process = Process()
        try start()
    }

    private func start() throws {
        guard let binary = Self.binary else { throw TestClientError(description: "nginx is not installed") }
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-p", folder.path, "-c", configuration.path, "-e", folder.path + "/error.log"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(20)
        while !Self.accepts(port) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                let log = (try? String(contentsOfFile: folder.path + "/error.log", encoding: .utf8)) ?? ""
                kill()
                throw TestClientError(description: "nginx did not start on port \(port):\n\(log)")
            }
            usleep(20_000)  // Bounded by the deadline: nginx's start.
        }
    }

    private func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    private static func accepts(_ port: UInt16) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = loopback(port)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A TCP port free on 127.0.0.1 now (bound to port 0, read back, released).
    private static func freePort() throws -> UInt16 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestClientError(description: "cannot open a socket") }
        defer { close(socket) }
        var address = loopback(0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw TestClientError(description: "cannot find a free port") }
        return UInt16(bigEndian: address.sin_port)
    }

    private static func loopback(_ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
