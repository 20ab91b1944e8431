import Foundation
import Glibc

/// nginx in front of two nodes, as a deployment puts it (deploy/remvvm.conf.template): clients know its URL only,
/// and it picks the node for each request. Which node is the test's choice (``route(toSecond:)``), where the
/// deployment's is its hash ring's: a session's requests move to another node when the ring changes.
final class Front: @unchecked Sendable {
    // Safety: `process` is started in `init` and afterwards only signalled and waited for, which Foundation's
    // `Process` allows from any thread; nothing else is mutable.
    private let process = Process()
    private let directory: URL
    /// nginx's URL.
    let url: URL

    /// The nginx binary, if one is installed.
    static let binary: String? = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Starts nginx on a free loopback port in front of the nodes on `first` and `second`, routing to `first`;
    /// waits at most `timeout` until it accepts connections.
    init(first: UInt16, second: UInt16, timeout: Duration = .seconds(20)) throws {
        guard let binary = Self.binary else { throw TestFailure("nginx is not installed") }
        directory = try temporaryFolder()
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        let port = try freePort()
        let folder = directory.path
        // One process, in the foreground, so the test owns it. Each request finds its node anew (a variable in
        // proxy_pass: no upstream block, no keep-alive to the nodes), as a hash ring does per request.
        let configuration = """
            daemon off;
            master_process off;
            pid \(folder)/nginx.pid;
            error_log \(folder)/error.log notice;
            events { worker_connections 256; }
            http {
                access_log \(folder)/access.log;
                client_body_temp_path \(folder)/tmp/body;
                proxy_temp_path \(folder)/tmp/proxy;
                fastcgi_temp_path \(folder)/tmp/fastcgi;
                uwsgi_temp_path \(folder)/tmp/uwsgi;
                scgi_temp_path \(folder)/tmp/scgi;
                server {
                    listen 127.0.0.1:\(port);
                    proxy_http_version 1.1;
                    proxy_set_header Connection "";
                    proxy_buffering off;
                    proxy_request_buffering off;
                    proxy_read_timeout 75s;
                    location / {
                        set $node 127.0.0.1:\(first);
                        if (-f \(folder)/second) { set $node 127.0.0.1:\(second); }
                        proxy_pass http://$node;
                    }
                }
            }
            """
        let file = directory.appendingPathComponent("nginx.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-p", folder, "-c", file.path, "-e", "\(folder)/error.log"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + timeout
        while !accepts(port) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                let log = (try? String(contentsOfFile: "\(folder)/error.log", encoding: .utf8)) ?? ""
                if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
                throw TestFailure("nginx did not start:\n\(log)")
            }
            usleep(20_000)  // Bounded by the deadline: nginx's start.
        }
        guard let url = URL(string: "http://127.0.0.1:\(port)/") else { throw TestFailure("no URL for \(port)") }
        self.url = url
    }

    /// Sends the requests from now on to the second node (`true`) or the first.
    func route(toSecond: Bool) throws {
        let marker = directory.appendingPathComponent("second")
        if toSecond {
            try Data().write(to: marker)
        } else if FileManager.default.fileExists(atPath: marker.path) {
            try FileManager.default.removeItem(at: marker)
        }
    }

    /// The access log: which requests nginx passed on, with their statuses.
    var accessLog: String {
        (try? String(contentsOf: directory.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
    }

    deinit {
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
private func accepts(_ port: UInt16) -> Bool {
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
private func freePort() throws -> UInt16 {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw TestFailure("cannot open a socket") }
    defer { close(socket) }
    var address = loopback(0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
        }
    }
    guard bound else { throw TestFailure("cannot find a free port") }
    return UInt16(bigEndian: address.sin_port)
}

private func loopback(_ port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
}
