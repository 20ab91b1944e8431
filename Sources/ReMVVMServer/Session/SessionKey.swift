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

    /// Reads the key from UTF-8 bytes where they lie, as the router and the credentials do with a request's path
    /// and header: no string to slice first.
    init?(utf8 digits: UnsafeBufferPointer<UInt8>) {
        guard let parsed = Self.parse(digits) else { return nil }
        self = parsed
    }

    /// All bits zero: what an empty slot of a ``SessionTable`` holds.
    static let zero = SessionKey(high: 0, low: 0)

    private init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    private static func parse(_ digits: UnsafeBufferPointer<UInt8>) -> SessionKey? {
        guard digits.count == 32, let base = digits.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        func chunk(_ index: Int) -> UInt64 {
            UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self))
        }
        let (first, second, third, fourth) = (chunk(0), chunk(1), chunk(2), chunk(3))
        guard areHexDigits(first), areHexDigits(second), areHexDigits(third), areHexDigits(fourth) else {
            return nil
        }
        return SessionKey(high: value(first) << 32 | value(second), low: value(third) << 32 | value(fourth))
    }

    // Eight digits at a time, as the bytes of one word (the first digit in the lowest byte): every request
    // reads two keys, and a loop over the digits cost more than the lookup they are for.

    private static let highBits: UInt64 = 0x8080_8080_8080_8080
    private static let ones: UInt64 = 0x0101_0101_0101_0101

    /// Whether all eight bytes are `0`-`9` or `a`-`f`.
    ///
    /// For a byte `b` under 0x80, `(b | 0x80) - c` keeps its high bit exactly when `b >= c`, and
    /// `(c | 0x80) - b` exactly when `b <= c`; neither borrows from the next byte.
    private static func areHexDigits(_ chunk: UInt64) -> Bool {
        guard chunk & highBits == 0 else { return false }
        let marked = chunk | highBits
        let isDecimal = (marked &- ones &* 0x30) & ((ones &* 0x39 | highBits) &- chunk)
        let isLetter = (marked &- ones &* 0x61) & ((ones &* 0x66 | highBits) &- chunk)
        return (isDecimal | isLetter) & highBits == highBits
    }

    /// The value of eight hex digits, the first one the most significant.
    private static func value(_ chunk: UInt64) -> UInt64 {
        // '0'...'9' are 0x30...0x39 and 'a'...'f' 0x61...0x66: the low four bits, plus 9 for a letter (bit 6).
        let nibbles = (chunk & (ones &* 0x0F)) &+ ((chunk >> 6) & ones) &* 9
        // Pairs of digits into bytes, pairs of bytes into 16 bits, pairs of those into the 32-bit value.
        let bytes = ((nibbles << 4) | (nibbles >> 8)) & 0x00FF_00FF_00FF_00FF
        let halves = ((bytes << 8) | (bytes >> 16)) & 0x0000_FFFF_0000_FFFF
        return ((halves << 16) | (halves >> 32)) & 0xFFFF_FFFF
    }

    /// The 32 lowercase hex digits the key was read from.
    var hexDigits: String {
        func digits(_ word: UInt64) -> String {
            let text = String(word, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }
        return digits(high) + digits(low)
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
