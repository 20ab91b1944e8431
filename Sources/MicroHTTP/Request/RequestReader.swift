import CMicroHTTPD
import Glibc

/// Reads the parts of a request that libmicrohttpd parsed, on the connection's worker thread.
enum RequestReader {
    /// Builds the request value handed to the handler.
    static func request(
        connection: ConnectionHandle,
        url: UnsafePointer<CChar>?,
        method: UnsafePointer<CChar>?,
        version: UnsafePointer<CChar>?,
        body: [UInt8]
    ) -> HTTPRequest {
        HTTPRequest(
            method: method.map { String(cString: $0) } ?? "",
            path: url.map { String(cString: $0) } ?? "/",
            query: values(of: .GET_ARGUMENT_KIND, on: connection),
            headers: HTTPHeaders(values(of: .HEADER_KIND, on: connection)),
            body: body,
            clientAddress: clientAddress(of: connection),
            version: version.map { String(cString: $0) } ?? ""
        )
    }

    /// The declared `Content-Length`, if present and numeric.
    static func declaredContentLength(of connection: ConnectionHandle) -> UInt64? {
        guard let value = MHD_lookup_connection_value(connection.pointer, .HEADER_KIND, "Content-Length")
        else { return nil }
        return UInt64(String(cString: value).trimmingSpaces)
    }

    /// Every key/value pair of one kind, in order, with lengths from libmicrohttpd (so embedded NULs survive).
    private static func values(of kind: MHD_ValueKind, on connection: ConnectionHandle) -> [(
        name: String, value: String
    )] {
        var pairs: [(name: String, value: String)] = []
        withUnsafeMutablePointer(to: &pairs) { pointer in
            _ = MHD_get_connection_values_n(
                connection.pointer, kind,
                { context, _, key, keySize, value, valueSize in
                    guard let context else { return .NO }
                    let name = key.map { RequestReader.decode($0, keySize) } ?? ""
                    let text = value.map { RequestReader.decode($0, valueSize) } ?? ""
                    context.assumingMemoryBound(to: [(name: String, value: String)].self).pointee.append(
                        (name: name, value: text))
                    return .YES
                },
                pointer)
        }
        return pairs
    }

    private static func decode(_ start: UnsafePointer<CChar>, _ count: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    }

    /// The peer address as text (IPv4 dotted quad, or IPv6), empty if libmicrohttpd does not know it.
    private static func clientAddress(of connection: ConnectionHandle) -> String {
        guard let address = cmhd_connection_client_address(connection.pointer) else { return "" }
        let raw = UnsafeRawPointer(address)
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            // Formatted by hand: inet_ntop goes through printf, a visible cost at 100k requests per second.
            let octets = withUnsafeBytes(of: raw.loadUnaligned(as: sockaddr_in.self).sin_addr) { Array($0) }
            return octets.map { String($0) }.joined(separator: ".")
        case AF_INET6:
            var ipv6 = raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr
            return withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN) + 1) { buffer in
                guard let base = buffer.baseAddress,
                    inet_ntop(AF_INET6, &ipv6, base, socklen_t(buffer.count)) != nil
                else { return "" }
                return String(cString: base)
            }
        default:
            return ""
        }
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs (HTTP optional whitespace).
    fileprivate var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
