/// A session version as clients see it: `"<epoch>.<n>"`, opaque to them.
///
/// `n` counts commits; `epoch` names the session's history and changes only if state was
/// lost, so a cursor from another history is recognised instead of being misread.
///
/// Package-visible so that the fuzzer (`remvvm-fuzz`) can reach its parsers.
package struct Cursor: Equatable, Sendable, CustomStringConvertible {
    package let epoch: String
    package let number: UInt64

    package var description: String { "\(epoch).\(number)" }

    /// Parses `"<epoch>.<n>"`, also with surrounding quotes (an ETag); nil if malformed.
    ///
    /// Exactly what the OpenAPI description's `Version` pattern allows, `^[A-Za-z0-9_-]{1,64}\.[0-9]{1,19}$`:
    /// ASCII only, so that no other spelling (a `+` sign, Unicode digits) names the same cursor.
    package init?(parsing text: String) {
        var text = Substring(text)
        if text.hasPrefix("W/") { text = text.dropFirst(2) }
        if text.count >= 2, text.first == "\"", text.last == "\"" { text = text.dropFirst().dropLast() }
        guard let dot = text.utf8.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        let epoch = text.utf8[..<dot]
        let digits = text.utf8[text.utf8.index(after: dot)...]
        guard (1...64).contains(epoch.count), epoch.allSatisfy(Self.isEpochCharacter),
            (1...19).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }),
            let number = UInt64(String(decoding: digits, as: UTF8.self))
        else { return nil }
        self.epoch = String(decoding: epoch, as: UTF8.self)
        self.number = number
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
        self.epoch = epoch
        self.number = number
    }

    /// The cursor as an ETag value.
    var etag: String { "\"\(description)\"" }
}
