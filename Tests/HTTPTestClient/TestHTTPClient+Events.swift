extension TestHTTPClient {
    /// Sends `GET target` for an event stream and reads the answer's head; when the answer is not a stream
    /// (a 204, a problem), its body too. Events then come from ``readEvent()`` and ``readEventBlock()``.
    public func openEventStream(_ target: String, headers: [(String, String)] = []) throws -> TestResponse {
        try sendRequest("GET", target, headers: [("Accept", "text/event-stream")] + headers)
        let head = try readHead()
        let isStream = head.headers.contains {
            $0.name.lowercased() == "content-type" && $0.value.lowercased().hasPrefix("text/event-stream")
        }
        if head.status == 200, isStream {
            eventBytes = []
            return TestResponse(status: head.status, headers: head.headers, body: [])
        }
        return try readBody(status: head.status, headers: head.headers)
    }

    /// Reads the next Server-Sent Events block from a chunked event stream whose head was read with
    /// ``readHead()``; nil when the stream ended (the last chunk arrived or the server closed).
    ///
    /// Blocks may span chunks and a chunk may hold several blocks; `\r\n` line endings are read as `\n`.
    public func readEventBlock() throws -> TestServerSentEvent? {
        while true {
            if let block = takeBlock() { return block }
            guard let chunk = try readChunk() else { return nil }
            eventBytes += chunk.filter { $0 != UInt8(ascii: "\r") }
        }
    }

    /// Reads the next block that carries data (an event an `EventSource` would dispatch), skipping the opening
    /// `retry:` block and heartbeat comments; nil when the stream ended.
    public func readEvent() throws -> TestServerSentEvent? {
        while let block = try readEventBlock() {
            if block.hasData { return block }
        }
        return nil
    }

    /// Removes one complete block (up to a blank line) from the buffered stream bytes, if there is one.
    private func takeBlock() -> TestServerSentEvent? {
        let newline = UInt8(ascii: "\n")
        guard
            let end = eventBytes.indices.dropLast().first(where: {
                eventBytes[$0] == newline && eventBytes[$0 + 1] == newline
            })
        else { return nil }
        let text = String(decoding: eventBytes[..<end], as: UTF8.self)
        eventBytes.removeFirst(end + 2)
        return TestServerSentEvent(lines: text.split(separator: "\n", omittingEmptySubsequences: false))
    }
}
