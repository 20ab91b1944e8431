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
    package init?(parsing text: String) {
        var text = Substring(text)
        if text.hasPrefix("W/") { text = text.dropFirst(2) }
        if text.count >= 2, text.first == "\"", text.last == "\"" { text = text.dropFirst().dropLast() }
        guard let dot = text.lastIndex(of: "."), dot != text.startIndex,
            let number = UInt64(text[text.index(after: dot)...])
        else { return nil }
        let epoch = text[..<dot]
        guard epoch.count <= 64, epoch.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            return nil
        }
        self.epoch = String(epoch)
        self.number = number
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
