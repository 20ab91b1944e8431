extension Span where Element == UInt8 {
    /// Whether these bytes are `other`'s, compared eight at a time: names on every request's path (an action's
    /// wire name, the route, the media type) are compared in place, and a byte-by-byte loop cost several times a
    /// bulk compare. Here because this is the lowest module the core and the server share.
    ///
    /// Bounds-checked throughout: the eight-byte loads read a `RawSpan`, and any bit pattern is a valid `UInt64`.
    @inlinable
    public func bytesEqual(_ other: Span<UInt8>) -> Bool {
        guard count == other.count else { return false }
        let mine = bytes
        let theirs = other.bytes
        var offset = 0
        while offset + 8 <= count {
            let word = mine.unsafeLoadUnaligned(fromByteOffset: offset, as: UInt64.self)
            guard word == theirs.unsafeLoadUnaligned(fromByteOffset: offset, as: UInt64.self) else { return false }
            offset += 8
        }
        while offset < count {
            guard self[offset] == other[offset] else { return false }
            offset += 1
        }
        return true
    }
}
