/// Unguessable identifiers: 128 random bits from the system CSPRNG, hex-encoded.
enum SecureToken {
    /// A new 128-bit token as 32 lowercase hex digits.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex(generator.next(), generator.next())
    }

    /// A short random id for a session's history epoch (64 bits).
    static func makeEpoch() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex(generator.next())
    }

    /// Compares in time that depends only on the lengths, so a token cannot be guessed byte by byte.
    static func equal(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        // Native strings and their slices are contiguous UTF-8: compare the bytes in place.
        let compared = lhs.utf8.withContiguousStorageIfAvailable { a in
            rhs.utf8.withContiguousStorageIfAvailable { b in differ(a, b) == 0 }
        }
        if let compared, let compared { return compared }
        return differ(Array(lhs.utf8), Array(rhs.utf8)) == 0
    }

    /// The OR of the XOR of every byte pair: zero only when all are equal, read without early exit.
    private static func differ(
        _ a: some RandomAccessCollection<UInt8>, _ b: some RandomAccessCollection<UInt8>
    ) -> UInt8 {
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference
    }

    /// The words as lowercase hex, 16 digits each, most significant first.
    ///
    /// Written straight into a string of exactly that size: every session keeps its id and token for
    /// life, and concatenating two halves left each with the spare capacity of a grown buffer.
    private static func hex(_ words: UInt64...) -> String {
        String(unsafeUninitializedCapacity: words.count * 16) { buffer in
            var index = 0
            for word in words {
                for shift in stride(from: 60, through: 0, by: -4) {
                    let nibble = UInt8(truncatingIfNeeded: word >> UInt64(shift)) & 0xF
                    buffer[index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
                    index += 1
                }
            }
            return index
        }
    }
}
