/// Unguessable identifiers: 128 random bits from the system CSPRNG, hex-encoded.
enum SecureToken {
    /// A new 128-bit token as 32 lowercase hex digits.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex(generator.next()) + hex(generator.next())
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

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
