import MicroHTTP

/// Reads fuzz input as an HTTP request, in the text form the seed corpus is written in:
///
/// ```
/// POST /v1/sessions/{id}/actions?views=counter
/// Authorization: Bearer {token}
/// If-Match: "{version}"
/// Content-Type: application/json
///
/// {"type":"counter/increase"}
/// ```
///
/// Every byte sequence is some request, so the fuzzer's mutations always reach the server. The head ends at
/// the first blank line and the body is the rest, byte for byte. In the head, `{id}`, `{token}` and
/// `{version}` stand for the session the fuzzer made for this input. The path and the query are
/// percent-decoded as libmicrohttpd decodes them (a decoded NUL ends the path), and invalid UTF-8 becomes
/// U+FFFD as it does in the transport.
struct FuzzRequest {
    /// The request the server gets.
    let request: HTTPRequest
    /// The head after substitution, for checks that depend on what the client sent.
    let head: String

    init(_ data: [UInt8], substituting placeholders: [(String, String)]) {
        let (headBytes, body) = Self.split(data)
        var head = String(decoding: headBytes, as: UTF8.self)
        for (placeholder, value) in placeholders { head = head.replacing(placeholder, with: value) }
        self.head = head
        var lines = head.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasSuffix("\r") ? line.dropLast() : line
        }
        let requestLine = lines.isEmpty ? "" : lines.removeFirst()
        let parts = requestLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        let method = parts.first.map(String.init) ?? ""
        let target = parts.count > 1 ? parts[1] : "/"
        let (path, query) = Self.target(target)
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: " \t")
            guard !name.isEmpty else { continue }
            headers.add(name: name, value: line[line.index(after: colon)...].trimmingCharacters(in: " \t"))
        }
        request = HTTPRequest(method: method, path: path, query: query, headers: headers, body: Array(body))
    }

    /// The head (before the first blank line, `\n\n` or `\r\n\r\n`) and the body.
    private static func split(_ data: [UInt8]) -> (head: ArraySlice<UInt8>, body: ArraySlice<UInt8>) {
        var index = data.startIndex
        while index < data.endIndex {
            if data[index] == 10 {
                if index + 1 < data.endIndex, data[index + 1] == 10 { return (data[..<index], data[(index + 2)...]) }
                if index + 2 < data.endIndex, data[index + 1] == 13, data[index + 2] == 10 {
                    return (data[..<index], data[(index + 3)...])
                }
            }
            index += 1
        }
        return (data[...], [])
    }

    /// The decoded path and query arguments of a request target.
    private static func target(_ target: Substring) -> (String, [(name: String, value: String)]) {
        let pieces = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var path = percentDecoded(pieces[0], plusIsSpace: false)
        if let nul = path.firstIndex(of: "\0") { path = String(path[..<nul]) }
        var query: [(name: String, value: String)] = []
        if pieces.count > 1 {
            for argument in pieces[1].split(separator: "&") {
                let pair = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let value = pair.count > 1 ? percentDecoded(pair[1], plusIsSpace: true) : ""
                query.append((percentDecoded(pair[0], plusIsSpace: true), value))
            }
        }
        return (path.isEmpty ? "/" : path, query)
    }

    private static func percentDecoded(_ text: Substring, plusIsSpace: Bool) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2, let high = hexValue(utf8[utf8.startIndex]),
                let low = hexValue(utf8[utf8.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                utf8 = utf8.dropFirst(2)
            } else if byte == UInt8(ascii: "+"), plusIsSpace {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension Substring {
    /// The text without leading and trailing characters of `set`.
    fileprivate func trimmingCharacters(in set: String) -> String {
        var slice = self
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
