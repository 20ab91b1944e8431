/// A session id or token as its 128 bits: the 32 lowercase hex digits ``SecureToken/make()`` writes, read back.
///
/// Every request finds its session among all of them and checks its token. Kept as two words, the lookup
/// compares keys held inline in the table and the token inline in the session, instead of following each
/// string to its own allocation: with thousands of sessions those are cache misses on every request.
struct SessionKey: Hashable, Sendable {
    let high: UInt64
    let low: UInt64

    /// Reads exactly 32 lowercase hex digits; nil for anything else, which no session id or token is.
    init?(_ text: some StringProtocol) {
        let parsed =
            text.utf8.withContiguousStorageIfAvailable(Self.parse)
            ?? Array(text.utf8).withUnsafeBufferPointer(Self.parse)
        guard let parsed else { return nil }
        self = parsed
    }

    /// All bits zero: what an empty slot of a ``SessionTable`` holds.
    static let zero = SessionKey(high: 0, low: 0)

    private init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    private static func parse(_ digits: UnsafeBufferPointer<UInt8>) -> SessionKey? {
        guard digits.count == 32, let high = word(digits, from: 0), let low = word(digits, from: 16) else {
            return nil
        }
        return SessionKey(high: high, low: low)
    }

    /// The 16 digits from `start` as one word. Without a branch per digit: it runs twice per request.
    private static func word(_ digits: UnsafeBufferPointer<UInt8>, from start: Int) -> UInt64? {
        var word: UInt64 = 0
        var valid: UInt8 = 1
        for index in start..<(start + 16) {
            let digit = digits[index]
            // Flags, not `&&` and `||`, which branch on every digit.
            let isDecimal: UInt8 = digit &- UInt8(ascii: "0") < 10 ? 1 : 0
            let isLetter: UInt8 = digit &- UInt8(ascii: "a") < 6 ? 1 : 0
            valid &= isDecimal | isLetter
            // '0'...'9' are 0x30...0x39 and 'a'...'f' 0x61...0x66: the low four bits, plus 9 for a letter.
            word = word << 4 | UInt64((digit & 0xF) &+ 9 &* (digit >> 6))
        }
        return valid == 1 ? word : nil
    }

    /// Whether two keys are equal, in time that does not depend on where they differ (for tokens).
    func matches(_ other: SessionKey) -> Bool {
        (high ^ other.high) | (low ^ other.low) == 0
    }

    /// The words are random (the system CSPRNG's), so one of them is hash enough.
    func hash(into hasher: inout Hasher) {
        hasher.combine(low)
    }
}
