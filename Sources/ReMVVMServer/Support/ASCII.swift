import ReMVVMJSON

/// Byte-level helpers for the ASCII parts of HTTP (header values, media types, schemes), which run on
/// every request: they read a string's UTF-8 in place instead of slicing and lowercasing `String`s.
enum ASCII {
    /// Whether `byte` is HTTP optional whitespace (space or tab).
    static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// `range` of `bytes` without leading and trailing spaces and tabs.
    static func trimmingBlanks(_ bytes: UnsafeBufferPointer<UInt8>, in range: Range<Int>) -> Range<Int> {
        var start = range.lowerBound
        var end = range.upperBound
        while start < end, isBlank(bytes[start]) { start += 1 }
        while end > start, isBlank(bytes[end - 1]) { end -= 1 }
        return start..<end
    }

    /// Whether `bytes`, with ASCII letters lowercased, equal `lowercase` (which must be lowercase already).
    ///
    /// An indexed loop over the two buffers, not `zip`'s generic iterators: it runs on every dispatch (the media
    /// type, the bearer scheme). A byte is folded only when it differs, as media types are nearly always sent in
    /// lowercase already.
    static func equalsLowercased(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { expected in
            // Sent in lowercase already, as media types nearly always are: one comparison of the whole.
            if UnsafeBufferPointer(rebasing: bytes).span.bytesEqual(expected.span) { return true }
            let base = bytes.startIndex
            for offset in 0..<expected.count {
                let byte = bytes.base[base + offset]
                guard byte != expected[offset] else { continue }
                let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                guard folded == expected[offset] else { return false }
            }
            return true
        }
    }
}
