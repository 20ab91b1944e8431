import Glibc

/// What a request's URL takes of its connection's memory (``ConnectionMemory``): its bytes, and the query
/// arguments libmicrohttpd parses out of it, each of which takes an entry of the pool.
struct URLShape: Sendable, Equatable {
    /// The URL's length in bytes, query included.
    let length: Int
    /// The query arguments libmicrohttpd keeps: one per `&`-separated piece after the first `?`, empty ones
    /// included but the one after a final `&`.
    let arguments: Int

    init(length: Int, arguments: Int) {
        self.length = length
        self.arguments = arguments
    }

    /// Measures the URL of a request line as libmicrohttpd hands it over: NUL-terminated, still percent-encoded.
    init(_ url: UnsafePointer<CChar>) {
        let length = strlen(url)
        guard let questionMark = strchr(url, Int32(UInt8(ascii: "?"))) else {
            self.init(length: length, arguments: 0)
            return
        }
        let ampersand = CChar(UInt8(ascii: "&"))
        let queryStart = UnsafePointer(questionMark) + 1
        let query = UnsafeBufferPointer(start: queryStart, count: length - (queryStart - url))
        guard let last = query.last else {
            // libmicrohttpd keeps nothing for an empty query.
            self.init(length: length, arguments: 0)
            return
        }
        var ampersands = 0
        for byte in query where byte == ampersand { ampersands += 1 }
        self.init(length: length, arguments: ampersands + (last == ampersand ? 0 : 1))
    }
}
