import CMicroHTTPD
import Synchronization

/// A response body fed from any thread over time, such as a Server-Sent Events stream.
///
/// Bytes written are sent in order with chunked encoding. While nothing is buffered the connection is
/// suspended, so an idle stream holds neither a thread nor a busy loop; a write resumes it. A stream serves a
/// single response. If the client reads slower than the stream is written and more than `maxBufferedBytes`
/// pile up, the stream gives up on that client: the connection is closed and writes return `false`. It does the
/// same when all streams of the server together hold more than ``HTTPServerConfiguration/streamBufferBudget`` and
/// this one still holds unsent bytes.
public final class ResponseStream: Sendable {
    private struct Binding: Sendable {
        let connection: ConnectionHandle
        let core: ServerCore
    }

    private let state: Mutex<StreamState>
    private let binding = Mutex<Binding?>(nil)

    /// Creates an unattached stream; pass it in ``HTTPResponse/Body/stream(_:)`` to send it.
    ///
    /// Writes made before the response is sent are buffered and go out first.
    public init(maxBufferedBytes: Int = 4 << 20) {
        state = Mutex(StreamState(maxBufferedBytes: maxBufferedBytes))
    }

    /// Appends bytes to the body; returns `false` once the stream is finished, the client is gone or the
    /// buffer limit was exceeded, so a producer knows to stop.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        switch state.withLock({ $0.write(bytes) }) {
        case .rejected:
            return false
        case .buffered:
            return true
        case .resume(let parking):
            resume(parking)
            return state.withLock { !$0.isAborted }
        }
    }

    /// Ends the body once everything already written is sent (the last chunk of the chunked encoding).
    public func finish() {
        finish(with: [])
    }

    /// Writes `last` and ends the body, in one step: no other thread's write can land after `last`, as one
    /// could between a ``write(_:)`` and a ``finish()`` (a closing event stays the last event).
    public func finish(with last: [UInt8]) {
        if let parking = state.withLock({ $0.finish(last: last) }) {
            resume(parking)
        }
    }

    /// Runs `body` once when the stream ends: finished and sent, client gone, server stopped, or its request
    /// ended before it was sent. If it already ended, `body` runs immediately on the caller's thread.
    public func onTermination(_ body: @escaping @Sendable () -> Void) {
        let registered = state.withLock { $0.addTerminationHandler(body) }
        if !registered { body() }
    }

    /// Whether the stream has ended; writes are then ignored.
    public var isTerminated: Bool {
        state.withLock { $0.isEnded }
    }

    // MARK: - Transport side

    /// Binds the stream to the connection it is about to be sent on; `false` if it is already in use.
    func attach(to connection: ConnectionHandle, core: ServerCore) -> Bool {
        guard state.withLock({ $0.attach(budget: core.streamBudget) }) else { return false }
        binding.withLock { $0 = Binding(connection: connection, core: core) }
        if !core.registerStream(self) {
            finish()  // The server is stopping: send what is buffered, then end.
        }
        return true
    }

    /// libmicrohttpd's content reader: copies buffered bytes, ends, aborts, or parks the connection.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let bound = binding.withLock({ $0 }) else { return CMHD_CONTENT_READER_END_WITH_ERROR }
        return state.withLock { state in
            switch state.read(into: buffer) {
            case .bytes(let count):
                return count
            case .endOfStream:
                return CMHD_CONTENT_READER_END_OF_STREAM
            case .abort:
                return CMHD_CONTENT_READER_END_WITH_ERROR
            case .park:
                state.didPark(bound.core.park(bound.connection, watchedBy: self))
                return 0
            }
        }
    }

    /// libmicrohttpd destroyed the response (sent, failed or connection closed): the stream is over.
    func responseReleased() {
        let bound = binding.withLock { $0 }
        bound?.core.unregisterStream(self)
        let handlers = state.withLock { $0.end() }
        for handler in handlers {
            handler()
        }
    }

    /// The request this stream answers ended; a stream never handed to libmicrohttpd ends with it.
    func requestEnded() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            state.isAttached ? [] : state.end()
        }
        for handler in handlers {
            handler()
        }
    }

    private func resume(_ parking: Parking) {
        binding.withLock { $0 }?.core.resume(parking)
    }
}

extension ResponseStream: ParkedClient {
    /// The disconnect watcher saw the client leave while the reader was parked: resume so the reader aborts.
    func clientDisappeared() {
        if let parking = state.withLock({ $0.clientDisappeared() }) {
            resume(parking)
        }
    }
}
