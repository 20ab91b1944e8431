import Glibc

/// A small blocking HTTP/1.1 client over a POSIX socket, for talking to the real server in tests.
///
/// It keeps the connection alive between requests, can send arbitrary bytes, reads `Content-Length`, chunked and
/// read-until-close bodies, and bounds every wait with a timeout so a broken server fails a test instead of
/// hanging it.
///
/// It is not `Sendable`: one thread uses it at a time. Async tests reach it through ``AsyncHTTPConnection``, which
/// runs each call on a thread of its own.
public final class TestHTTPClient {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var isClosed = false
    /// Event-stream bytes already de-chunked but not yet parsed into events.
    var eventBytes: [UInt8] = []
    /// How long any single read waits for the server.
    public let timeout: Duration

    /// Connects to 127.0.0.1:`port`, from the local IPv4 address `source` when given (`127.0.0.2`: Linux routes
    /// all of 127.0.0.0/8 on loopback, so tests can be several client addresses).
    public init(port: UInt16, timeout: Duration = .seconds(5), from source: String? = nil) throws {
        self.timeout = timeout
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestClientError(description: "socket() failed: errno \(errno)") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            let parsed = inet_pton(AF_INET, source, &local.sin_addr)
            let bound =
                parsed == 1
                && withUnsafePointer(to: &local) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                    }
                }
            guard bound else {
                let code = errno
                close()
                throw TestClientError(description: "cannot bind to \(source): errno \(code)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            // Through `close()`, which marks the client closed: a class whose initializer throws once every
            // property is set is deinitialized, and `deinit` closing the number again would close whatever
            // descriptor another thread opened under it meanwhile (a server's connection, in a parallel test run).
            close()
            throw TestClientError(description: "connect to port \(port) failed: errno \(code)")
        }
    }

    deinit {
        close()
    }

    /// Closes the socket (the server sees the client leave).
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }

    /// Sends raw bytes.
    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw TestClientError(description: "send failed: errno \(errno)") }
            offset += sent
        }
    }

    /// Sends raw text.
    public func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// Sends one request with `Host` (`localhost` unless `headers` has one) and, when there is a body,
    /// `Content-Length`.
    public func sendRequest(
        _ method: String,
        _ target: String,
        headers: [(String, String)] = [],
        body: [UInt8] = []
    ) throws {
        var head = "\(method) \(target) HTTP/1.1\r\n"
        if !headers.contains(where: { $0.0.lowercased() == "host" }) {
            head += "Host: localhost\r\n"
        }
        for (name, value) in headers {
            head += "\(name): \(value)\r\n"
        }
        if !body.isEmpty && !headers.contains(where: { $0.0.lowercased() == "content-length" }) {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        try send(Array(head.utf8) + body)
    }

    /// Sends one request and reads its response.
    public func request(
        _ method: String,
        _ target: String,
        headers: [(String, String)] = [],
        body: [UInt8] = []
    ) throws -> TestResponse {
        try sendRequest(method, target, headers: headers, body: body)
        return try readResponse(hasBody: method != "HEAD")
    }

    /// Reads a status line and header block.
    public func readHead() throws -> (status: Int, headers: [(name: String, value: String)]) {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw TestClientError(description: "bad status line: \(statusLine)")
        }
        var headers: [(name: String, value: String)] = []
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else {
                throw TestClientError(description: "bad header line: \(line)")
            }
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            headers.append((name: String(line[..<colon]), value: String(value)))
        }
        return (status, headers)
    }

    /// Reads a whole response: `Content-Length`, chunked, or (without either) until the server closes.
    public func readResponse(hasBody: Bool = true) throws -> TestResponse {
        let head = try readHead()
        return try readBody(status: head.status, headers: head.headers, hasBody: hasBody)
    }

    /// Reads the body that follows a head read with ``readHead()``, and returns the whole response.
    public func readBody(
        status: Int,
        headers: [(name: String, value: String)],
        hasBody: Bool = true
    ) throws -> TestResponse {
        var response = TestResponse(status: status, headers: headers, body: [])
        guard hasBody, status >= 200, status != 204, status != 304 else { return response }
        if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            response.body = try readExactly(length)
        } else if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            while let chunk = try readChunk() {
                response.body += chunk
            }
        } else {
            response.body = try readUntilClosed()
        }
        response.receivedAt = .now
        return response
    }

    /// Reads one chunk of a chunked body; `nil` for the last (empty) chunk, after its trailer.
    public func readChunk() throws -> [UInt8]? {
        let sizeLine = try readLine()
        let sizeText = sizeLine.split(separator: ";").first.map(String.init) ?? ""
        guard let size = Int(sizeText.trimmingCharacters(" "), radix: 16) else {
            throw TestClientError(description: "bad chunk size line: \(sizeLine)")
        }
        if size == 0 {
            while try !readLine().isEmpty {}
            return nil
        }
        let chunk = try readExactly(size)
        guard try readLine().isEmpty else { throw TestClientError(description: "chunk not followed by CRLF") }
        return chunk
    }

    /// Reads and drops at least `count` bytes of what comes next, raw (chunk framing included), keeping none:
    /// for a large body a test only counts, at the cost of the system calls alone. Returns how many were dropped.
    public func discard(atLeast count: Int) throws -> Int {
        var dropped = buffer.count
        buffer = []
        var scratch = [UInt8](repeating: 0, count: 256 * 1024)
        let end = ContinuousClock().now.advanced(by: timeout)
        while dropped < count {
            let remaining = ContinuousClock().now.duration(to: end)
            let milliseconds = max(0, Int32(remaining / .milliseconds(1)))
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, milliseconds) > 0 else {
                throw TestClientError(description: "timed out after \(dropped) of \(count) bytes")
            }
            let received = scratch.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard received > 0 else { throw TestClientError(description: "closed after \(dropped) of \(count) bytes") }
            dropped += received
        }
        return dropped
    }

    /// Reads until the server closes the connection.
    public func readUntilClosed() throws -> [UInt8] {
        while try fill() {}
        defer { buffer = [] }
        return buffer
    }

    /// Whether bytes from the server reach this client's socket within `timeout`, without reading them: safe to
    /// call from another thread while the owning thread does not read.
    public func bytesArrive(within timeout: Duration) -> Bool {
        let milliseconds = Int32(
            timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        var descriptor = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, milliseconds) == 1
    }

    /// Whether the server closes the connection within `timeout` (reading and discarding anything it sends).
    public func waitForClose(timeout: Duration) -> Bool {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: timeout)
        while clock.now < end {
            do {
                if try !fill(until: end) { return true }
                buffer = []
            } catch {
                return false
            }
        }
        return false
    }

    private func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw TestClientError(description: "connection closed inside a body") }
        }
        defer { buffer.removeFirst(count) }
        return Array(buffer[..<count])
    }

    private func readLine() throws -> String {
        while true {
            if let index = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let end = index > 0 && buffer[index - 1] == UInt8(ascii: "\r") ? index - 1 : index
                let line = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(index + 1)
                return line
            }
            guard try fill() else { throw TestClientError(description: "connection closed before end of line") }
        }
    }

    /// Reads what is available into the buffer, waiting up to the client's timeout; `false` at end of stream.
    private func fill() throws -> Bool {
        try fill(until: ContinuousClock().now.advanced(by: timeout))
    }

    private func fill(until end: ContinuousClock.Instant) throws -> Bool {
        let remaining = ContinuousClock().now.duration(to: end)
        let milliseconds = max(
            0, Int32(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000))
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, milliseconds)
        guard ready > 0 else { throw TestClientError(description: "timed out waiting for the server") }
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let received = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if received < 0 {
            if errno == ECONNRESET { return false }
            throw TestClientError(description: "recv failed: errno \(errno)")
        }
        if received == 0 { return false }
        buffer += chunk[..<received]
        return true
    }
}

extension String {
    fileprivate func trimmingCharacters(_ character: Character) -> String {
        String(drop { $0 == character }.reversed().drop { $0 == character }.reversed())
    }
}
