/// Why a document is not valid JSON and where: the byte offset lets a client find the mistake in its payload.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The offset, in bytes from the start of the input, of the first byte that could not be accepted.
    public var offset: Int
    /// What was wrong, in words suitable for an error response.
    public var reason: String

    /// Creates an error at `offset`; package so other parsers of JSON-shaped input can report the same way.
    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// The reason with its offset, as a client would want to read it.
    public var description: String {
        "invalid JSON at byte \(offset): \(reason)"
    }
}
