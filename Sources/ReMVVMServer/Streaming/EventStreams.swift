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
        var text = ""
        if let retry { text += "retry: \(retry)\n" }
        if let id { text += "id: \(id)\n" }
        if let event { text += "event: \(event)\n" }
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
        return Array((text + "\n").utf8)
    }

    /// `id`, `event` and `data` lines written straight into bytes. Data without a line break (compact
    /// JSON has none) is one `data:` line; data with line breaks takes the general path.
    static func bytes(id: String, event: String, data: [UInt8]) -> [UInt8] {
        guard !data.contains(UInt8(ascii: "\n")), !data.contains(UInt8(ascii: "\r")) else {
            return ServerSentEvent(id: id, event: event, data: String(decoding: data, as: UTF8.self)).bytes
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count + id.utf8.count + event.utf8.count + 24)
        bytes.append(utf8: "id: ")
        bytes += id.utf8
        bytes.append(utf8: "\nevent: ")
        bytes += event.utf8
        bytes.append(utf8: "\ndata: ")
        bytes += data
        bytes.append(utf8: "\n\n")
        return bytes
    }
}
