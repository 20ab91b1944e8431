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
    static func equal(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8)
        let b = Array(rhs.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
