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
