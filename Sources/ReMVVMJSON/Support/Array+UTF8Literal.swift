extension Array where Element == UInt8 {
    /// Appends the UTF-8 bytes of a literal, read in place.
    ///
    /// JSON answers are written piece by piece (`{"op":"`, `","path":"`, …): appending `"…".utf8` goes through
    /// the generic sequence path, about twice the work of copying the literal's bytes for pieces this short.
    @inlinable
    public mutating func append(utf8 literal: StaticString) {
        literal.withUTF8Buffer { append(contentsOf: $0) }
    }
}
