import CMicroHTTPD

/// An answer written straight to the socket, past libmicrohttpd, after which the connection closes.
///
/// libmicrohttpd 0.9.75 writes an answer's status line and header fields into the connection's memory pool
/// (``HTTPServerConfiguration/connectionMemoryLimit``), where the request's head already is. A head that nearly
/// fills the pool leaves no room for any answer, its own 414 and 431 included: the library then closes the
/// connection unanswered, or, for a long URL, leaves it waiting for its idle timeout (RELIABILITY.md). The transport
/// answers those requests itself, with a complete HTTP/1.1 answer and `Connection: close`.
enum DirectAnswer {
    /// The request context of a request answered before its header fields were read: a token no allocation has,
    /// so the access handler and the completion callback tell it from a responder.
    static var mark: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: 1) }

    /// Writes `response` (its in-memory body, if any) to the connection's socket and shuts the socket down;
    /// libmicrohttpd closes the connection when it next looks at it. Returns whether every byte was sent.
    @discardableResult
    static func send(_ response: HTTPResponse, on connection: ConnectionHandle) -> Bool {
        let bytes = encoded(response, date: currentDate())
        return bytes.withUnsafeBytes { buffer in
            cmhd_connection_answer_and_shut_down(connection.pointer, buffer.baseAddress, buffer.count) == 1
        }
    }

    /// `response` as sent: status line, `Date`, its header fields but `Content-Length` and `Connection`, which
    /// are written here, and its body.
    static func encoded(_ response: HTTPResponse, date: String) -> [UInt8] {
        let body: [UInt8]
        if case .bytes(let bytes) = response.body { body = bytes } else { body = [] }
        var head = "HTTP/1.1 \(response.status) \(reasonPhrase(for: response.status))\r\nDate: \(date)\r\n"
        response.headers.forEachField { name, value in
            guard !HTTPHeaders.namesMatch(name, "Content-Length"), !HTTPHeaders.namesMatch(name, "Connection")
            else { return }
            head += "\(name): \(value)\r\n"
        }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    /// The reason phrases of the statuses the transport answers this way (clients ignore them, RFC 9112).
    private static func reasonPhrase(for status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 408: "Request Timeout"
        case 414: "URI Too Long"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        default: status < 500 ? "Client Error" : "Server Error"
        }
    }

    private static func currentDate() -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 40) { buffer in
            let length = cmhd_http_date(buffer.baseAddress, buffer.count)
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: length), as: UTF8.self)
        }
    }
}
