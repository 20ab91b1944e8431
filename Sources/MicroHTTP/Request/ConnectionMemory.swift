import CMicroHTTPD

/// What a request's head leaves of its connection's memory pool, so that a request is handled only while its
/// answer can still be written.
///
/// libmicrohttpd keeps a request's head, the values it parses out of it and the answer's status line and header
/// fields in one fixed pool per connection (``HTTPServerConfiguration/connectionMemoryLimit``). A head that only
/// just fits leaves too little for any answer: libmicrohttpd would close the connection after the handler ran, so
/// the client never learned that its action was applied, or, for a long URL, leave it unanswered until its idle
/// timeout. Such requests are refused unhandled instead, a URL that ``admits(url:)`` refuses with 414 as soon as the
/// request line is read and a head that leaves less than ``answerRoom`` with 431 before the handler, both written
/// past libmicrohttpd (``DirectAnswer``).
struct ConnectionMemory: Sendable {
    /// Pool bytes per parsed value (header field, cookie or query argument): libmicrohttpd 0.9.75's entry of
    /// seven words, rounded up to its 16-byte alignment.
    static let bytesPerValue = 64
    /// Pool bytes an answer's status line and header fields must find free: three times the largest the server
    /// writes, so an estimate a few hundred bytes short still leaves room.
    static let answerRoom = 1024
    /// Pool bytes a request line must leave for the header fields after it: a dozen ordinary fields of a few
    /// hundred bytes with their entries. Past it, fields do not fit beside a URL that was admitted.
    static let fieldRoom = 1024
    /// The smallest pool the server accepts: with less, the heads of ordinary browser requests (a few hundred
    /// bytes and a dozen fields) would not leave the answer its room.
    static let smallestLimit = 4096

    /// The pool's size in bytes.
    let limit: Int

    /// The longest URL a request may have, when it has no query arguments: the rest of the pool is the header
    /// fields' room and the answer's.
    var longestURL: Int { limit - Self.fieldRoom - Self.answerRoom }

    /// The most query arguments a URL may have, however short: their entries share the half of the pool that
    /// libmicrohttpd does not first read into with the header fields' room.
    var mostArguments: Int { (limit - limit / 2 - Self.fieldRoom) / Self.bytesPerValue }

    /// Whether a request line with this URL leaves room for its header fields and its answer: its length, with an
    /// entry per query argument, is at most ``longestURL``, and it has at most ``mostArguments``.
    ///
    /// libmicrohttpd reads the head into a buffer that starts at half the pool and grows with the head, and keeps
    /// an entry per query argument at the pool's other end as soon as the request line is read. A URL whose
    /// arguments leave no room for those entries, or for the header fields read next, gets libmicrohttpd's own
    /// 431, or, with no room left for that either, no answer until the idle timeout.
    func admits(url: URLShape) -> Bool {
        url.arguments <= mostArguments && url.length + url.arguments * Self.bytesPerValue <= longestURL
    }

    /// The pool bytes a head takes: the head as received (request line and header fields), an entry per parsed
    /// value, and libmicrohttpd's copy of the `Cookie` field, which it parses into cookies.
    static func headUse(headBytes: Int, values: Int, cookieFieldBytes: Int) -> Int {
        headBytes + values * bytesPerValue + (cookieFieldBytes > 0 ? aligned(cookieFieldBytes + 1) : 0)
    }

    /// Whether a head of this size leaves room for the answer.
    func leavesRoomForAnswer(headBytes: Int, values: Int, cookieFieldBytes: Int) -> Bool {
        limit - Self.headUse(headBytes: headBytes, values: values, cookieFieldBytes: cookieFieldBytes)
            >= Self.answerRoom
    }

    /// Whether the head of the request on `connection`, complete when its handler is first called, leaves room
    /// for the answer.
    func leavesRoomForAnswer(on connection: ConnectionHandle) -> Bool {
        var cookie: UnsafePointer<CChar>?
        var cookieFieldBytes = 0
        _ = MHD_lookup_connection_value_n(connection.pointer, .HEADER_KIND, "Cookie", 6, &cookie, &cookieFieldBytes)
        return leavesRoomForAnswer(
            headBytes: cmhd_connection_request_head_size(connection.pointer),
            values: Int(max(0, cmhd_connection_parsed_value_count(connection.pointer))),
            cookieFieldBytes: cookie == nil ? 0 : cookieFieldBytes
        )
    }

    private static func aligned(_ bytes: Int) -> Int { (bytes + 15) & ~15 }
}
