extension JSONValue {
    /// Parses a UTF-8 JSON document strictly (RFC 8259), because request bodies come from clients we do not
    /// control and a lenient parser would accept documents other tools reject.
    ///
    /// Integers that fit `Int64` become `.int`, all other numbers `.double`; numbers too large for a `Double`
    /// are rejected rather than turned into infinity. Duplicate keys keep the last value.
    ///
    /// - Parameters:
    ///   - bytes: The document's UTF-8 bytes, without a byte order mark.
    ///   - maxDepth: How deeply arrays and objects may nest; deeper input is rejected before it can exhaust the
    ///     stack.
    /// - Throws: `JSONParseError` naming the byte offset of the first problem.
    public init(parsing bytes: some Collection<UInt8>, maxDepth: Int = 512) throws(JSONParseError) {
        var parser = JSONParser(bytes: Array(bytes), maxDepth: maxDepth)
        self = try parser.parseDocument()
    }

    /// Parses a JSON document held in a string, a convenience for tests and configuration.
    public init(parsing text: String, maxDepth: Int = 512) throws(JSONParseError) {
        try self.init(parsing: text.utf8, maxDepth: maxDepth)
    }
}
