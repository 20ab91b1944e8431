import Glibc
import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import Synchronization

/// Every open event stream, so heartbeats and shutdown can reach them.
final class EventStreams: Sendable {
    private struct State {
        var streams: [UInt64: ResponseStream] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// How many streams are open.
    var count: Int { state.withLock { $0.streams.count } }

    /// Tracks a stream until it ends.
    func add(_ stream: ResponseStream) {
        let id = state.withLock { state in
            state.nextID += 1
            state.streams[state.nextID] = stream
            return state.nextID
        }
        stream.onTermination { [weak self] in self?.state.withLock { _ = $0.streams.removeValue(forKey: id) } }
    }

    /// Sends a comment to every stream, which keeps proxies from closing idle streams and lets
    /// the transport notice clients that left.
    func heartbeat() {
        let heartbeat = Array(": hb\n\n".utf8)
        for stream in state.withLock({ Array($0.streams.values) }) { stream.write(heartbeat) }
    }

    /// Ends every stream with an `end` event (server shutdown).
    func endAll(reason: String) {
        let event = ServerSentEvent(event: "end", data: #"{"reason":"\#(reason)"}"#).bytes
        for stream in state.withLock({ Array($0.streams.values) }) {
            stream.finish(with: event)  // In one step: a change published meanwhile cannot follow `end`.
        }
    }
}

/// One Server-Sent Events message.
struct ServerSentEvent {
    var id: String?
    var event: String?
    var data: String
    var retry: Int?

    var bytes: [UInt8] {
        var bytes: [UInt8] = []
        if let retry { bytes += "retry: \(retry)\n".utf8 }
        if let id { bytes += "id: \(id)\n".utf8 }
        if let event { bytes += "event: \(event)\n".utf8 }
        Self.appendData(Array(data.utf8), to: &bytes)
        return bytes
    }

    /// `id`, `event` and `data` lines written straight into bytes. O(bytes): nothing here looks at characters,
    /// which for text of many combining marks cost seconds per megabyte on the worker thread.
    static func bytes(id: String, event: String, data: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count + id.utf8.count + event.utf8.count + 24)
        bytes.append(utf8: "id: ")
        bytes += id.utf8
        bytes.append(utf8: "\nevent: ")
        bytes += event.utf8
        bytes.append(UInt8(ascii: "\n"))
        appendData(data, to: &bytes)
        return bytes
    }

    /// A `data:` line for each line of `data` (split at CR LF, LF or CR, the format's line ends), then the blank
    /// line that ends the event. Compact JSON has no line break: one `data:` line, copied in one piece.
    private static func appendData(_ data: [UInt8], to bytes: inout [UInt8]) {
        bytes.append(utf8: "data: ")
        let hasLineBreak = data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return false }
            return memchr(base, 0x0A, raw.count) != nil || memchr(base, 0x0D, raw.count) != nil
        }
        guard hasLineBreak else {
            bytes += data
            bytes.append(utf8: "\n\n")
            return
        }
        var index = data.startIndex
        var start = index
        while let found = data[index...].firstIndex(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) {
            bytes += data[start..<found]
            bytes.append(utf8: "\ndata: ")
            let isPair =
                data[found] == UInt8(ascii: "\r") && found + 1 < data.endIndex && data[found + 1] == UInt8(ascii: "\n")
            index = found + (isPair ? 2 : 1)
            start = index
        }
        bytes += data[start...]
        bytes.append(utf8: "\n\n")
    }
}
