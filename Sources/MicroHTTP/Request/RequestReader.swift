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
        body: [UInt8],
        trustedProxies: ProxyList = ProxyList([])
    ) -> HTTPRequest {
        HTTPRequest(
            method: method.map { known(Self.methods, $0) } ?? "",
            path: url.map { String(cString: $0) } ?? "/",
            query: queryArguments(on: connection),
            headers: headers(on: connection),
            body: body,
            clientAddress: clientAddress(of: connection),
            version: version.map { known(Self.versions, $0) } ?? "",
            isFromTrustedProxy: !trustedProxies.isEmpty && isTrusted(connection, among: trustedProxies)
        )
    }

    /// Whether the peer's IPv4 address is in `trusted`.
    private static func isTrusted(_ connection: ConnectionHandle, among trusted: ProxyList) -> Bool {
        guard let address = cmhd_connection_client_address(connection.pointer),
            Int32(address.pointee.sa_family) == AF_INET
        else { return false }
        return trusted.contains(sAddr: UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self).sin_addr.s_addr)
    }

    /// The methods and versions nearly every request has, as strings made once: a request's own copy would be
    /// read, validated and made again on every request.
    private static let methods = ["GET", "POST", "HEAD", "DELETE", "PUT", "PATCH", "OPTIONS"]
    private static let versions = ["HTTP/1.1", "HTTP/1.0"]

    /// The string of `known` that `text` spells, or a new one.
    private static func known(_ known: [String], _ text: UnsafePointer<CChar>) -> String {
        let count = strlen(text)
        return spelled(count, bytesAt: text, among: known) ?? decode(text, count)
    }

    /// The string of `known` whose UTF-8 is the `count` bytes at `start`, compared on the bytes: cheaper than
    /// reading them into a new string.
    private static func spelled(_ count: Int, bytesAt start: UnsafePointer<CChar>, among known: [String]) -> String? {
        for name in known where name.utf8.count == count {
            let equal = name.utf8.withContiguousStorageIfAvailable { name in
                name.baseAddress.map { memcmp($0, start, count) == 0 } ?? true
            }
            if equal == true { return name }
        }
        return nil
    }

    /// The declared `Content-Length`, if present and numeric (digits, optionally between spaces or tabs).
    static func declaredContentLength(of connection: ConnectionHandle) -> UInt64? {
        guard let value = MHD_lookup_connection_value(connection.pointer, .HEADER_KIND, "Content-Length")
        else { return nil }
        return parseLength(UnsafeRawBufferPointer(start: value, count: strlen(value)))
    }

    /// Whether the request has two `Content-Length` fields that differ (RFC 9112 §6.3: a recipient must then treat
    /// the message as invalid; identical ones may be taken as one). Walks the header fields (in C, names compared
    /// by length first), so it is asked only of requests that have one.
    static func hasConflictingContentLengths(_ connection: ConnectionHandle) -> Bool {
        cmhd_connection_content_lengths_differ(connection.pointer) != 0
    }

    /// Reads a decimal length on the bytes, as it runs for every request with a body.
    static func parseLength(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var digits = bytes[...]
        while let first = digits.first, isBlank(first) { digits = digits.dropFirst() }
        while let last = digits.last, isBlank(last) { digits = digits.dropLast() }
        guard !digits.isEmpty else { return nil }
        var length: UInt64 = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (times10, overflow) = length.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            length = sum
        }
        return length
    }

    /// The query arguments, in order, with lengths from libmicrohttpd (so embedded NULs survive), in a list
    /// allocated once at its final size (a long-poll's `views`, `since` and `wait` would otherwise grow it
    /// three times).
    private static func queryArguments(on connection: ConnectionHandle) -> [(name: String, value: String)] {
        let count = valueCount(of: .GET_ARGUMENT_KIND, on: connection)
        guard count > 0 else { return [] }
        var pairs: [(name: String, value: String)] = []
        pairs.reserveCapacity(count)
        withUnsafeMutablePointer(to: &pairs) { pointer in
            _ = MHD_get_connection_values_n(
                connection.pointer, .GET_ARGUMENT_KIND,
                { context, _, key, keySize, value, valueSize in
                    guard let context else { return .NO }
                    context.assumingMemoryBound(to: [(name: String, value: String)].self).pointee.append(
                        (name: RequestReader.decode(key, keySize), value: RequestReader.decode(value, valueSize)))
                    return .YES
                },
                pointer)
        }
        return pairs
    }

    /// The header fields, in order, appended straight into one list allocated at its final size.
    private static func headers(on connection: ConnectionHandle) -> HTTPHeaders {
        var headers = HTTPHeaders(minimumCapacity: valueCount(of: .HEADER_KIND, on: connection))
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = MHD_get_connection_values_n(
                connection.pointer, .HEADER_KIND,
                { context, _, key, keySize, value, valueSize in
                    guard let context else { return .NO }
                    context.assumingMemoryBound(to: HTTPHeaders.self).pointee.add(
                        name: RequestReader.fieldName(key, keySize), value: RequestReader.decode(value, valueSize))
                    return .YES
                },
                pointer)
        }
        return headers
    }

    /// How many values of `kind` the request has (libmicrohttpd counts them when given no iterator).
    private static func valueCount(of kind: MHD_ValueKind, on connection: ConnectionHandle) -> Int {
        Int(max(0, MHD_get_connection_values_n(connection.pointer, kind, nil, nil)))
    }

    /// The field names clients send on nearly every request, spelled as they send them, as strings made once.
    private static let fieldNames = [
        "Host", "Authorization", "Content-Type", "Content-Length", "Accept", "User-Agent", "Connection", "Cookie",
        "Accept-Encoding", "Accept-Language", "Origin", "Referer", "If-Match", "If-None-Match", "Idempotency-Key",
        "Last-Event-ID", "Sec-Fetch-Site", "Cache-Control",
    ]

    /// A header field's name: one of ``fieldNames`` when it is spelled so, else a new string.
    private static func fieldName(_ start: UnsafePointer<CChar>?, _ count: Int) -> String {
        guard let start else { return "" }
        return spelled(count, bytesAt: start, among: fieldNames) ?? decode(start, count)
    }

    private static func decode(_ start: UnsafePointer<CChar>?, _ count: Int) -> String {
        guard let start else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    }

    /// The peer address as text (IPv4 dotted quad, or IPv6), empty if libmicrohttpd does not know it.
    private static func clientAddress(of connection: ConnectionHandle) -> String {
        guard let address = cmhd_connection_client_address(connection.pointer) else { return "" }
        let raw = UnsafeRawPointer(address)
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            // Formatted by hand into one small string: inet_ntop goes through printf, a visible cost at
            // 100k requests per second, and at most 15 bytes stay inline in the String (no allocation).
            return withUnsafeBytes(of: raw.loadUnaligned(as: sockaddr_in.self).sin_addr) { octets in
                String(unsafeUninitializedCapacity: 15) { text in
                    var count = 0
                    for (index, octet) in octets.enumerated() {
                        if index > 0 {
                            text[count] = UInt8(ascii: ".")
                            count += 1
                        }
                        if octet >= 100 {
                            text[count] = UInt8(ascii: "0") + octet / 100
                            count += 1
                        }
                        if octet >= 10 {
                            text[count] = UInt8(ascii: "0") + octet / 10 % 10
                            count += 1
                        }
                        text[count] = UInt8(ascii: "0") + octet % 10
                        count += 1
                    }
                    return count
                }
            }
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
