/// Unguessable identifiers: random bits from the system CSPRNG, hex-encoded.
enum SecureToken {
    /// A new 128-bit token as 32 lowercase hex digits.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex([generator.next(), generator.next()], digitsEach: 16)
    }

    /// A short random id for a session's history epoch: 60 bits as 15 hex digits.
    ///
    /// Fifteen bytes is what a Swift string holds inline: the session keeps its epoch without a heap
    /// buffer, and a long-poll compares its cursor's epoch with it without reading a cold one.
    static func makeEpoch() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex([generator.next()], digitsEach: 15)
    }

    /// The low `digitsEach` hex digits of each word, lowercase, most significant first.
    ///
    /// Written straight into a string of exactly that size: every session keeps its id and token for
    /// life, and concatenating two halves left each with the spare capacity of a grown buffer.
    private static func hex(_ words: [UInt64], digitsEach: Int) -> String {
        String(unsafeUninitializedCapacity: words.count * digitsEach) { buffer in
            var index = 0
            for word in words {
                for shift in stride(from: (digitsEach - 1) * 4, through: 0, by: -4) {
                    let nibble = UInt8(truncatingIfNeeded: word >> UInt64(shift)) & 0xF
                    buffer[index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
                    index += 1
                }
            }
            return index
        }
    }
}
