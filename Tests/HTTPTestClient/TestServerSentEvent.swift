/// One Server-Sent Events block as the test client parsed it: the fields up to a blank line.
///
/// Blocks without data (the opening `retry:` or a `: hb` heartbeat) are kept too, so tests can assert on them.
public struct TestServerSentEvent: Sendable, Equatable {
    /// The `id:` field, if the block had one.
    public var id: String?
    /// The `event:` field (the event type), if the block had one.
    public var event: String?
    /// The `data:` lines joined with newlines; empty when there were none.
    public var data: String
    /// The `retry:` field in milliseconds, if the block had one.
    public var retry: Int?
    /// The comment lines (after the leading colon, without one leading space).
    public var comments: [String]

    /// Whether an `EventSource` would dispatch this block: it has data.
    public var hasData: Bool { !data.isEmpty }

    /// Parses the lines of one block (without the blank line that ends it).
    public init(lines: [Substring]) {
        var id: String?
        var event: String?
        var data: [String] = []
        var retry: Int?
        var comments: [String] = []
        for line in lines {
            if line.hasPrefix(":") {
                comments.append(String(Self.dropOneSpace(line.dropFirst())))
                continue
            }
            let field: Substring
            let value: Substring
            if let colon = line.firstIndex(of: ":") {
                field = line[..<colon]
                value = Self.dropOneSpace(line[line.index(after: colon)...])
            } else {
                field = line
                value = ""
            }
            switch field {
            case "id": id = String(value)
            case "event": event = String(value)
            case "data": data.append(String(value))
            case "retry": retry = Int(value)
            default: break
            }
        }
        self.id = id
        self.event = event
        self.data = data.joined(separator: "\n")
        self.retry = retry
        self.comments = comments
    }

    private static func dropOneSpace(_ text: Substring) -> Substring {
        text.first == " " ? text.dropFirst() : text
    }
}
