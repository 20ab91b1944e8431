/// Finds the values in a document in this library's compact serialization by their byte ranges, for
/// ``CanonicalJSONDiffer``. It accepts only that form: no whitespace, object members sorted by name with no
/// name twice, strings in well-formed UTF-8 with only the escapes `JSONValue.serialize` writes (`\"`, `\\`,
/// `\b`, `\t`, `\n`, `\f`, `\r`, and `\u00XX` for other control characters). Anything else gives nil, so once
/// `valueEnd` accepted a document the differ relies on the form without checking again. Numbers only have to
/// be JSON numbers: the differ compares them by their bytes.
struct CanonicalJSONScanner {
    private let bytes: UnsafeBufferPointer<UInt8>

    /// Deeper documents are left to the tree differ.
    private static let maximumDepth = 256

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Where the value starting at `start` ends, checking everything inside it; nil if it is malformed.
    func valueEnd(from start: Int, depth: Int = 0) -> Int? {
        guard start < bytes.count, depth < Self.maximumDepth else { return nil }
        switch bytes[start] {
        case UInt8(ascii: "{"):
            var index = start + 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { return index + 1 }
            var previousKey: Range<Int>?
            while true {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let keyEnd = stringEnd(from: index),
                    keyEnd < bytes.count, bytes[keyEnd] == UInt8(ascii: ":"),
                    let valueEnd = valueEnd(from: keyEnd + 1, depth: depth + 1), valueEnd < bytes.count
                else { return nil }
                // Names strictly increasing, as serialization sorts them (and no name twice).
                let key = (index + 1)..<(keyEnd - 1)
                if let previousKey, Self.compareKeys(bytes, previousKey, bytes, key) >= 0 { return nil }
                previousKey = key
                if bytes[valueEnd] == UInt8(ascii: "}") { return valueEnd + 1 }
                guard bytes[valueEnd] == UInt8(ascii: ",") else { return nil }
                index = valueEnd + 1
            }
        case UInt8(ascii: "["):
            var index = start + 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { return index + 1 }
            while true {
                guard let elementEnd = valueEnd(from: index, depth: depth + 1), elementEnd < bytes.count else {
                    return nil
                }
                if bytes[elementEnd] == UInt8(ascii: "]") { return elementEnd + 1 }
                guard bytes[elementEnd] == UInt8(ascii: ",") else { return nil }
                index = elementEnd + 1
            }
        case UInt8(ascii: "\""):
            return stringEnd(from: start)
        case UInt8(ascii: "t"):
            return literalEnd("true", from: start)
        case UInt8(ascii: "f"):
            return literalEnd("false", from: start)
        case UInt8(ascii: "n"):
            return literalEnd("null", from: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return numberEnd(from: start)
        default:
            return nil
        }
    }

    /// Appends the members of the (already checked) object at `object` to `ranges`: each name's bytes
    /// between its quotes, then its value.
    func appendMembers(of object: Range<Int>, to ranges: inout [Range<Int>]) {
        var index = object.lowerBound + 1
        guard index < object.upperBound - 1 else { return }
        while index < object.upperBound, let keyEnd = stringEnd(from: index), let valueEnd = valueEnd(from: keyEnd + 1)
        {
            ranges.append((index + 1)..<(keyEnd - 1))
            ranges.append((keyEnd + 1)..<valueEnd)
            index = valueEnd + 1  // Past the `,` or the closing `}`.
        }
    }

    /// The member of an (already checked) object that starts at `index`, its name's opening quote: the name's
    /// bytes between its quotes, its value, and where the next member starts (nil after the last).
    func member(at index: Int) -> (name: Range<Int>, value: Range<Int>, next: Int?)? {
        guard let keyEnd = stringEnd(from: index), let valueEnd = valueEnd(from: keyEnd + 1), valueEnd < bytes.count
        else { return nil }
        let next = bytes[valueEnd] == UInt8(ascii: ",") ? valueEnd + 1 : nil
        return ((index + 1)..<(keyEnd - 1), (keyEnd + 1)..<valueEnd, next)
    }

    /// Appends the element ranges of the (already checked) array at `array` to `ranges`.
    func appendElements(of array: Range<Int>, to ranges: inout [Range<Int>]) {
        var index = array.lowerBound + 1
        guard index < array.upperBound - 1 else { return }
        while index < array.upperBound, let end = valueEnd(from: index) {
            ranges.append(index..<end)
            index = end + 1
        }
    }

    /// Orders two member names (their escaped bytes) by the UTF-8 of their text, as serialization sorts them.
    static func compareKeys(
        _ left: UnsafeBufferPointer<UInt8>, _ leftKey: Range<Int>,
        _ right: UnsafeBufferPointer<UInt8>, _ rightKey: Range<Int>
    ) -> Int {
        let escape = UInt8(ascii: "\\")
        let common = min(leftKey.count, rightKey.count)
        for offset in 0..<common {
            let (leftByte, rightByte) = (left[leftKey.lowerBound + offset], right[rightKey.lowerBound + offset])
            // An escape stands for a byte that sorts elsewhere: compare the texts from here on.
            if leftByte == escape || rightByte == escape {
                return compare(
                    unescaped(left[(leftKey.lowerBound + offset)..<leftKey.upperBound]),
                    unescaped(right[(rightKey.lowerBound + offset)..<rightKey.upperBound]))
            }
            if leftByte != rightByte { return leftByte < rightByte ? -1 : 1 }
        }
        return leftKey.count == rightKey.count ? 0 : (leftKey.count < rightKey.count ? -1 : 1)
    }

    private static func compare(_ left: [UInt8], _ right: [UInt8]) -> Int {
        for (leftByte, rightByte) in zip(left, right) where leftByte != rightByte {
            return leftByte < rightByte ? -1 : 1
        }
        return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
    }

    /// Whether two ranges hold the same bytes.
    static func equal(
        _ left: UnsafeBufferPointer<UInt8>, _ leftRange: Range<Int>,
        _ right: UnsafeBufferPointer<UInt8>, _ rightRange: Range<Int>
    ) -> Bool {
        guard leftRange.count == rightRange.count else { return false }
        for offset in 0..<leftRange.count
        where left[leftRange.lowerBound + offset] != right[rightRange.lowerBound + offset] {
            return false
        }
        return true
    }

    /// The estimated serialized size (as the differ counts it) of the (already checked) value at `value`, counting no
    /// further than just past `limit`.
    func estimatedSize(of value: Range<Int>, limit: Int) -> Int {
        switch bytes[value.lowerBound] {
        case UInt8(ascii: "n"), UInt8(ascii: "t"):
            return 4
        case UInt8(ascii: "f"):
            return 5
        case UInt8(ascii: "\""):
            return Self.unescapedLength(of: (value.lowerBound + 1)..<(value.upperBound - 1), in: bytes) + 2
        case UInt8(ascii: "{"):
            var size = 2
            var index = value.lowerBound + 1
            guard index < value.upperBound - 1 else { return size }
            while index < value.upperBound, size <= limit {
                guard let keyEnd = stringEnd(from: index), let valueEnd = valueEnd(from: keyEnd + 1) else { break }
                let memberLimit = limit - size  // As the tree's estimate: the limit before the name counts.
                size += Self.unescapedLength(of: (index + 1)..<(keyEnd - 1), in: bytes) + 4
                size += estimatedSize(of: (keyEnd + 1)..<valueEnd, limit: memberLimit)
                index = valueEnd + 1
            }
            return size
        case UInt8(ascii: "["):
            var size = 2
            var index = value.lowerBound + 1
            guard index < value.upperBound - 1 else { return size }
            while index < value.upperBound, size <= limit {
                guard let end = valueEnd(from: index) else { break }
                size += estimatedSize(of: index..<end, limit: limit - size) + 1
                index = end + 1
            }
            return size
        default:
            // A number: integers are estimated at their length, doubles (written with `.` or `e`) at 12.
            let isDouble = bytes[value].contains { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }
            return isDouble ? 12 : value.count
        }
    }

    /// The length in UTF-8 of the text a string's escaped bytes (between the quotes) stand for.
    static func unescapedLength(of escaped: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var length = escaped.count
        var index = escaped.lowerBound
        while index < escaped.upperBound {
            if bytes[index] == UInt8(ascii: "\\") {
                let isUnicode = bytes[index + 1] == UInt8(ascii: "u")
                length -= isUnicode ? 5 : 1
                index += isUnicode ? 6 : 2
            } else {
                index += 1
            }
        }
        return length
    }

    /// The text a string's escaped bytes stand for, as UTF-8.
    static func unescaped(_ escaped: Slice<UnsafeBufferPointer<UInt8>>) -> [UInt8] {
        var text: [UInt8] = []
        text.reserveCapacity(escaped.count)
        var index = escaped.startIndex
        while index < escaped.endIndex {
            let byte = escaped[index]
            guard byte == UInt8(ascii: "\\") else {
                text.append(byte)
                index += 1
                continue
            }
            // Checked already: a short escape, or `\u00XX` for a control character.
            if let short = JSONParser.shortEscapeByte(escaped[index + 1]) {
                text.append(short)
                index += 2
            } else {
                text.append(hexValue(escaped[index + 4]) << 4 | hexValue(escaped[index + 5]))
                index += 6
            }
        }
        return text
    }

    // MARK: - Scanning

    /// Where the string starting at `start` (its opening quote) ends, just past its closing quote.
    private func stringEnd(from start: Int) -> Int? {
        guard start < bytes.count, bytes[start] == UInt8(ascii: "\"") else { return nil }
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                return index + 1
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { return nil }
                switch bytes[index + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "b"), UInt8(ascii: "t"), UInt8(ascii: "n"),
                    UInt8(ascii: "f"), UInt8(ascii: "r"):
                    index += 2
                case UInt8(ascii: "u"):
                    // Only a control character below U+0020, as `\u00XX` with lowercase hex digits.
                    guard index + 5 < bytes.count, bytes[index + 2] == UInt8(ascii: "0"),
                        bytes[index + 3] == UInt8(ascii: "0"),
                        bytes[index + 4] == UInt8(ascii: "0") || bytes[index + 4] == UInt8(ascii: "1"),
                        Self.isLowercaseHexDigit(bytes[index + 5])
                    else { return nil }
                    index += 6
                default:
                    return nil
                }
            case 0..<0x20:
                return nil
            case 0x80...:
                // Serialization writes Swift strings, so only well-formed UTF-8.
                guard let end = UTF8Sequence.end(in: bytes, from: index) else { return nil }
                index = end
            default:
                index += 1
            }
        }
        return nil
    }

    private func literalEnd(_ literal: StaticString, from start: Int) -> Int? {
        let count = literal.utf8CodeUnitCount
        guard start + count <= bytes.count else { return nil }
        for offset in 0..<count where bytes[start + offset] != literal.utf8Start[offset] { return nil }
        return start + count
    }

    /// Where the number starting at `start` ends, by JSON's grammar: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`.
    /// Numbers are compared by their bytes, so only their syntax is checked, not that they are written the
    /// way serialization writes them.
    private func numberEnd(from start: Int) -> Int? {
        var index = start
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, Self.isDigit(bytes[index]) else { return nil }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, Self.isDigit(bytes[index]) else { return nil }
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, Self.isDigit(bytes[index]) else { return nil }
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        return index
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isLowercaseHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    private static func hexValue(_ digit: UInt8) -> UInt8 {
        digit <= UInt8(ascii: "9") ? digit - UInt8(ascii: "0") : digit - UInt8(ascii: "a") + 10
    }
}
