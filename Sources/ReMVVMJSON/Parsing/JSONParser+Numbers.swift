extension JSONParser {
    /// Parses a number: `.int` when it is written as an integer and fits `Int64`, otherwise `.double`.
    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        if current == UInt8(ascii: "-") {
            index += 1
        }
        guard let first = current, isDigit(first) else {
            throw unexpected(" in number", expected: "a digit")
        }
        index += 1
        if first == UInt8(ascii: "0") {
            if let next = current, isDigit(next) {
                throw error("leading zeros are not allowed", at: index - 1)
            }
        } else {
            skipDigits()
        }
        var isInteger = true
        if current == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            try requireDigits(after: "the decimal point")
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") {
                index += 1
            }
            try requireDigits(after: "the exponent marker")
        }
        if isInteger, let integer = integerValue(start..<index) {
            return .int(integer)
        }
        guard let double = Double(String(decoding: bytes[start..<index], as: UTF8.self)), double.isFinite else {
            throw error("number out of range", at: start)
        }
        return .double(double)
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private mutating func skipDigits() {
        while let byte = current, isDigit(byte) {
            index += 1
        }
    }

    private mutating func requireDigits(after what: String) throws(JSONParseError) {
        guard let byte = current, isDigit(byte) else {
            throw unexpected(" after \(what)", expected: "a digit")
        }
        skipDigits()
    }

    /// The integer written in `range` (an optional `-` and digits), or `nil` when it does not fit `Int64`.
    /// Negative numbers accumulate downwards so that `Int64.min` fits.
    private func integerValue(_ range: Range<Int>) -> Int64? {
        var digits = range
        let negative = bytes[range.lowerBound] == UInt8(ascii: "-")
        if negative {
            digits = range.dropFirst()
        }
        var value: Int64 = 0
        for position in digits {
            let digit = Int64(bytes[position] - UInt8(ascii: "0"))
            let (shifted, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (next, failed) =
                negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflowed, !failed else { return nil }
            value = next
        }
        return value
    }
}
