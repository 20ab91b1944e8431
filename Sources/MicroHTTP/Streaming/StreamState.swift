/// The life of one streamed response body, as a value-type state machine.
///
/// Writers append from any thread; libmicrohttpd's content reader drains on a worker thread and parks the
/// connection when nothing is buffered. Every event returns what the caller must do, so the reader-parks /
/// writer-resumes race is decided in one place, under one lock, with no I/O.
struct StreamState: Sendable {
    /// What a write asks the caller to do.
    enum WriteAction: Sendable, Equatable {
        /// Not accepted: finished, ended, client gone or buffer limit exceeded.
        case rejected
        /// Buffered; the reader is running or will be called, nothing to wake.
        case buffered
        /// Buffered; resume this connection, whose reader parked on an empty buffer.
        case resume(Parking)
    }

    /// What the content reader must return to libmicrohttpd.
    enum ReadResult: Sendable, Equatable {
        /// This many bytes were copied.
        case bytes(Int)
        /// Everything was sent after `finish()`: end the chunked body.
        case endOfStream
        /// Abort: close the connection (client gone or buffer overflow).
        case abort
        /// Nothing buffered: the caller must suspend the connection and return 0.
        case park
    }

    let maxBufferedBytes: Int
    private var pending: [UInt8] = []
    private var readOffset = 0
    private(set) var isFinished = false
    private(set) var isAborted = false
    private(set) var isEnded = false
    private(set) var isAttached = false
    private(set) var parking: Parking?
    private var terminationHandlers: [@Sendable () -> Void] = []
    /// The server-wide budget the buffered bytes count against, from ``attach(budget:)`` on: it holds exactly
    /// ``bufferedCount`` for this stream.
    private var budget: StreamBudget?

    init(maxBufferedBytes: Int) {
        self.maxBufferedBytes = maxBufferedBytes
    }

    /// Bytes written but not yet handed to libmicrohttpd.
    var bufferedCount: Int { pending.count - readOffset }

    /// A writer appends bytes.
    mutating func write(_ bytes: [UInt8]) -> WriteAction {
        guard !isFinished, !isAborted, !isEnded else { return .rejected }
        if bufferedCount + bytes.count > maxBufferedBytes {
            // The client reads slower than we write: give up on it rather than grow without bound.
            return abort()
        }
        guard !bytes.isEmpty else { return .buffered }
        if let budget, !budget.take(bytes.count, force: bufferedCount == 0) {
            // All streams together hold too much, and this one's client has not taken what it has: it goes first.
            budget.endedStream()
            return abort()
        }
        pending.append(contentsOf: bytes)
        return takeParking().map(WriteAction.resume) ?? .buffered
    }

    /// A writer ends the body, with `last` as its last bytes when they fit the buffer; returns the parking to
    /// resume, if the reader parked. In one step, so no other writer's bytes can come after `last`.
    mutating func finish(last: [UInt8] = []) -> Parking? {
        guard !isFinished, !isEnded else { return nil }
        if !isAborted, bufferedCount + last.count <= maxBufferedBytes {
            _ = budget?.take(last.count, force: true)
            pending.append(contentsOf: last)
        }
        isFinished = true
        return takeParking()
    }

    /// The disconnect watcher saw the client leave; returns the parking to resume, if the reader parked.
    mutating func clientDisappeared() -> Parking? {
        guard parking != nil else { return nil }
        isAborted = true
        return takeParking()
    }

    /// The transport binds the stream to a connection; `false` if it already was (a stream serves one response).
    mutating func attach(budget: StreamBudget? = nil) -> Bool {
        guard !isAttached, !isEnded else { return false }
        isAttached = true
        if let budget {
            _ = budget.take(bufferedCount, force: true)  // Written before the response was sent.
            self.budget = budget
        }
        return true
    }

    /// The content reader asks for up to `buffer.count` bytes.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        if isAborted || isEnded { return .abort }
        let available = bufferedCount
        if available > 0 {
            let count = min(available, buffer.count)
            pending.withUnsafeBytes { source in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[readOffset..<(readOffset + count)]))
            }
            readOffset += count
            budget?.release(count)
            compact()
            return .bytes(count)
        }
        return isFinished ? .endOfStream : .park
    }

    /// The caller suspended the connection after `read` said `.park`.
    mutating func didPark(_ parked: Parking) {
        parking = parked
    }

    /// Registers a termination handler; returns `false` when the stream already ended (run it now).
    mutating func addTerminationHandler(_ handler: @escaping @Sendable () -> Void) -> Bool {
        guard !isEnded else { return false }
        terminationHandlers.append(handler)
        return true
    }

    /// The response is gone (sent, failed or never sent); returns the termination handlers to run once.
    mutating func end() -> [@Sendable () -> Void] {
        isEnded = true
        parking = nil
        budget?.release(bufferedCount)
        pending = []
        readOffset = 0
        let handlers = terminationHandlers
        terminationHandlers = []
        return handlers
    }

    /// Gives up on the client: drops what is buffered; the reader, if parked, is resumed to abort.
    private mutating func abort() -> WriteAction {
        isAborted = true
        budget?.release(bufferedCount)
        pending = []
        readOffset = 0
        return takeParking().map(WriteAction.resume) ?? .rejected
    }

    private mutating func takeParking() -> Parking? {
        defer { parking = nil }
        return parking
    }

    /// Drops sent bytes once they are the bigger part of the buffer, keeping appends and reads amortised O(1).
    private mutating func compact() {
        if readOffset == pending.count {
            pending.removeAll(keepingCapacity: true)
            readOffset = 0
        } else if readOffset >= 64 * 1024 && readOffset * 2 >= pending.count {
            pending.removeFirst(readOffset)
            readOffset = 0
        }
    }
}
