/// What the transport tracks of one request while it arrives: the body so far and where the exchange stands.
///
/// It lives in the request's ``Responder``, under the lock of its exchange, in the object libmicrohttpd keeps in
/// `*con_cls` from the first access-handler call until the request-completed callback releases it, so a request
/// costs one object rather than two. Only libmicrohttpd's callbacks for the connection touch it, one at a time on
/// the connection's worker thread.
struct RequestContext {
    private let maxBodySize: Int

    /// The body received so far, at most `maxBodySize` bytes.
    private(set) var body: [UInt8] = []
    /// The body outgrew `maxBodySize`; the rest is discarded and the request answered 413.
    private(set) var bodyTooLarge = false
    /// Bytes discarded after the body outgrew the limit.
    private var discarded = 0
    /// The handler has been called (or the transport answered by itself); later calls are resumptions.
    var isDispatched = false
    /// The responder's place in the server's parked registry, which it must leave when the request ends.
    var registration: UInt64?

    init(maxBodySize: Int) {
        self.maxBodySize = maxBodySize
    }

    /// Most bytes discarded after the limit before the connection is dropped instead of answered, so a client
    /// streaming an endless chunked body cannot keep a worker busy forever.
    private var discardLimit: Int { max(maxBodySize, 16 << 20) }

    /// Takes one upload chunk; returns `false` when the connection should be dropped.
    mutating func receive(_ chunk: UnsafeRawBufferPointer) -> Bool {
        if bodyTooLarge {
            discarded += chunk.count
            return discarded <= discardLimit
        }
        guard body.count + chunk.count <= maxBodySize else {
            bodyTooLarge = true
            discarded = body.count + chunk.count
            body = []
            return true
        }
        body.append(contentsOf: chunk)
        return true
    }

    /// Most bytes reserved for a body before they arrive: a body up to this size (every dispatch) takes one
    /// allocation; a larger one grows by doubling as its bytes arrive, so a connection that declares 1 MiB and
    /// sends a few bytes holds a few bytes, not 1 MiB (that times 10,000 connections was 10 GiB).
    static let initialBodyCapacity = 16 * 1024

    /// Reserves room for a body of the declared length (already checked against the limit), up to
    /// ``initialBodyCapacity``.
    mutating func expectBody(length: Int) {
        body.reserveCapacity(min(length, Self.initialBodyCapacity))
    }

    /// The bytes the body buffer holds room for (tests).
    var bodyCapacity: Int { body.capacity }

    /// Hands the body over (once) to the request value.
    mutating func takeBody() -> [UInt8] {
        defer { body = [] }
        return body
    }
}
