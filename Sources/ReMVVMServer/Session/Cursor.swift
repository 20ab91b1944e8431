/// A session version as clients see it: `"<epoch>.<n>"`, opaque to them.
///
/// `n` counts commits; `epoch` names the session's history and changes only if state was
/// lost, so a cursor from another history is recognised instead of being misread.
///
/// Package-visible so that the fuzzer (`remvvm-fuzz`) can reach its parsers.
package struct Cursor: Equatable, Sendable, CustomStringConvertible {
    package let epoch: String
    package let number: UInt64
    /// The text the cursor was read from when that is exactly how it is written (no quotes, no leading
    /// zeros): a long-poll's answer names its `since` as `from`, and need not write it again.
    private let text: String?

    /// Cursors are equal when they name the same version, however they were spelled.
    package static func == (lhs: Cursor, rhs: Cursor) -> Bool {
        lhs.number == rhs.number && lhs.epoch == rhs.epoch
    }

    package var description: String { text ?? written }

    /// Written on the bytes: it runs for every dispatch answer and every poll answer.
    private var written: String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            var rest = number
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            let number = UnsafeBufferPointer(rebasing: digits[start...])
            return String(unsafeUninitializedCapacity: epoch.utf8.count + 1 + number.count) { text in
                let dot = text.initialize(fromContentsOf: epoch.utf8)
                text[dot] = UInt8(ascii: ".")
                let end = UnsafeMutableBufferPointer(rebasing: text[(dot + 1)...]).initialize(fromContentsOf: number)
                return dot + 1 + end
            }
        }
    }

    /// Parses `"<epoch>.<n>"`, also with surrounding quotes (an ETag); nil if malformed.
    ///
    /// Exactly what the OpenAPI description's `Version` pattern allows, `^[A-Za-z0-9_-]{1,64}\.[0-9]{1,19}$`:
    /// ASCII only, so that no other spelling (a `+` sign, Unicode digits) names the same cursor.
    package init?(parsing text: String) {
        var bytes = text
        guard let parsed = bytes.withUTF8({ Self.parse($0) }) else { return nil }
        self.init(epoch: parsed.epoch, number: parsed.number, text: parsed.isWritten ? text : nil)
    }

    /// The parser itself, on the bytes: it runs for every poll with `since` and every `If-Match`. Also
    /// tells whether the bytes are the cursor's written form.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> (epoch: String, number: UInt64, isWritten: Bool)?
    {
        let quote = UInt8(ascii: "\"")
        var start = 0
        var end = bytes.count
        if end >= 2, bytes[0] == UInt8(ascii: "W"), bytes[1] == UInt8(ascii: "/") { start = 2 }
        if end - start >= 2, bytes[start] == quote, bytes[end - 1] == quote {
            start += 1
            end -= 1
        }
        guard let dot = bytes[start..<end].lastIndex(of: UInt8(ascii: ".")) else { return nil }
        let epoch = bytes[start..<dot]
        let digits = bytes[(dot + 1)..<end]
        guard (1...64).contains(epoch.count), epoch.allSatisfy(isEpochCharacter), (1...19).contains(digits.count)
        else { return nil }
        var number: UInt64 = 0  // At most 19 digits: below UInt64.max, no overflow.
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            number = number * 10 + UInt64(digit - UInt8(ascii: "0"))
        }
        let isWritten = start == 0 && end == bytes.count && (digits.count == 1 || digits.first != UInt8(ascii: "0"))
        return (String(decoding: UnsafeBufferPointer(rebasing: epoch), as: UTF8.self), number, isWritten)
    }

    private static func isEpochCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// Parses a strong entity tag, `"<epoch>.<n>"` with its quotes (what `If-Match` compares); nil for
    /// anything else, a weak `W/` tag and a bare version included.
    package init?(entityTag text: String) {
        guard text.utf8.count >= 2, text.utf8.first == UInt8(ascii: "\""), text.utf8.last == UInt8(ascii: "\"")
        else { return nil }
        self.init(parsing: text)
    }

    init(epoch: String, number: UInt64) {
        self.init(epoch: epoch, number: number, text: nil)
    }

    private init(epoch: String, number: UInt64, text: String?) {
        self.epoch = epoch
        self.number = number
        self.text = text
    }

    /// The cursor as an ETag value.
    var etag: String { Self.entityTag(of: description) }

    /// A version as written in `Store-Version`, quoted as an ETag value, in one allocation: every dispatch and
    /// long-poll answer carries one.
    static func entityTag(of version: String) -> String {
        var version = version
        return version.withUTF8 { bytes in
            String(unsafeUninitializedCapacity: bytes.count + 2) { text in
                text[0] = UInt8(ascii: "\"")
                let end = UnsafeMutableBufferPointer(rebasing: text[1...]).initialize(fromContentsOf: bytes) + 1
                text[end] = UInt8(ascii: "\"")
                return end + 1
            }
        }
    }
}
