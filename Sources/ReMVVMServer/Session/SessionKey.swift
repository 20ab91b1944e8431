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
        let parsed = text.utf8.withContiguousStorageIfAvailable(Self.parse) ?? Self.parse(Array(text.utf8))
        guard let parsed else { return nil }
        self = parsed
    }

    private init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    private static func parse(_ digits: some Collection<UInt8>) -> SessionKey? {
        guard digits.count == 32 else { return nil }
        var words: (UInt64, UInt64) = (0, 0)
        for (index, digit) in digits.enumerated() {
            let nibble: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = digit - UInt8(ascii: "a") + 10
            default: return nil
            }
            if index < 16 {
                words.0 = words.0 << 4 | UInt64(nibble)
            } else {
                words.1 = words.1 << 4 | UInt64(nibble)
            }
        }
        return SessionKey(high: words.0, low: words.1)
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
