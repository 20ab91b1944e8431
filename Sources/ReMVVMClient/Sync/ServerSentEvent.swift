/// One Server-Sent Event: its type, its data and its id.
struct ServerSentEvent: Sendable, Hashable {
    var event = "message"
    var data = ""
    var id: String?
}

/// Cuts a stream of bytes into events (the WHATWG event-stream format): `field: value` lines, an event per blank
/// line, comments (`: hb`) and `retry:` skipped.
struct EventStreamParser: Sendable {
    private var line: [UInt8] = []
    private var current = ServerSentEvent()
    private var hasFields = false

    /// The events completed by `bytes`.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            guard byte == UInt8(ascii: "\n") else {
                line.append(byte)
                continue
            }
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            if line.isEmpty {
                if hasFields { events.append(current) }
                current = ServerSentEvent()
                hasFields = false
            } else {
                take(String(decoding: line, as: UTF8.self))
            }
            line.removeAll(keepingCapacity: true)
        }
        return events
    }

    private mutating func take(_ text: String) {
        guard !text.hasPrefix(":") else { return }
        let name: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            name = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            name = Substring(text)
            value = ""
        }
        switch name {
        case "event":
            current.event = String(value)
            hasFields = true
        case "data":
            current.data = hasFields && !current.data.isEmpty ? current.data + "\n" + value : String(value)
            hasFields = true
        case "id":
            current.id = String(value)
        default:
            break
        }
    }
}
