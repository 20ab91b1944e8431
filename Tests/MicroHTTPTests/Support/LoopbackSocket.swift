import Glibc

/// A raw TCP socket to 127.0.0.1 from a chosen loopback address (`127.0.0.2`, `127.0.0.3`, ...: Linux routes the
/// whole 127/8 on loopback), so a test can act as several client addresses. Every wait has a timeout.
final class LoopbackSocket {
    let descriptor: Int32
    private var isClosed = false

    /// Connects from `source` to 127.0.0.1:`port`; `receiveBuffer` sets `SO_RCVBUF` first (a reader that takes
    /// little). Throws when the socket, bind or connect (bounded by `timeout`) fails.
    init(from source: String, to port: UInt16, timeout: Duration = .seconds(5), receiveBuffer: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket() failed: errno \(errno)") }
        do {
            var time = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
            _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
            if var size = receiveBuffer {
                _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            guard inet_pton(AF_INET, source, &local.sin_addr) == 1 else { throw TestFailure("bad address \(source)") }
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw TestFailure("bind to \(source) failed: errno \(errno)") }
            var remote = sockaddr_in()
            remote.sin_family = sa_family_t(AF_INET)
            remote.sin_port = port.bigEndian
            remote.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let connected = withUnsafePointer(to: &remote) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else { throw TestFailure("connect from \(source) failed: errno \(errno)") }
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }

    /// Sends `text` whole (blocking, bounded by the send timeout); false when the connection is gone.
    @discardableResult
    func send(_ text: String) -> Bool {
        send(Array(text.utf8))
    }

    /// Sends `bytes` whole; false when the connection is gone.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Whether bytes (or the end of the connection) arrive within `timeout`, without reading them.
    func isReadable(within timeout: Duration) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, Int32(timeout / .milliseconds(1))) == 1
    }

    /// Reads until the server closes the connection or `timeout` passes; what arrived, and whether it closed.
    func readUntilClosed(timeout: Duration) -> (text: String, closed: Bool) {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: timeout)
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while clock.now < end {
            guard isReadable(within: clock.now.duration(to: end)) else { break }
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return (String(decoding: received, as: UTF8.self), true) }
            received += chunk[..<count]
        }
        return (String(decoding: received, as: UTF8.self), false)
    }

    /// Reads an answer's head and `Content-Length` body, within `timeout`; nil when none came whole.
    func readAnswer(timeout: Duration) -> (status: Int, head: String, body: String)? {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: timeout)
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while clock.now < end, isReadable(within: clock.now.duration(to: end)) {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 { received += chunk[..<count] }
            if let split = Self.endOfHead(in: received) {
                let head = String(decoding: received[..<split], as: UTF8.self)
                let length =
                    head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: " ")) } ?? 0
                let body = received[(split + 4)...]
                if body.count >= length, let status = Int(head.dropFirst(9).prefix(3)) {
                    return (status, head, String(decoding: body, as: UTF8.self))
                }
            }
            if count <= 0 { return nil }
        }
        return nil
    }
}

extension LoopbackSocket {
    /// Where `bytes` has its first empty line (`CR LF CR LF`), if it has one.
    fileprivate static func endOfHead(in bytes: [UInt8]) -> Int? {
        let mark: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual(mark) }
    }
}

/// A failed step of a test's own plumbing (a socket call), with its reason.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Substring {
    fileprivate func trimmingCharacters(in character: Character) -> String {
        String(drop { $0 == character }.reversed().drop { $0 == character }.reversed())
    }
}
