/// The one check of a multi-byte UTF-8 sequence that the parser and the canonical scanner share.
enum UTF8Sequence {
    /// Where the multi-byte sequence whose lead byte is at `start` ends, if it is well-formed by RFC 3629
    /// (no overlong forms, no surrogates, nothing above U+10FFFF); nil otherwise.
    static func end<Bytes: RandomAccessCollection<UInt8>>(in bytes: Bytes, from start: Bytes.Index) -> Bytes.Index?
    where Bytes.Index == Int {
        let continuationCount: Int
        var secondByteRange: ClosedRange<UInt8> = 0x80...0xBF
        switch bytes[start] {
        case 0xC2...0xDF:
            continuationCount = 1
        case 0xE0:
            continuationCount = 2
            secondByteRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF:
            continuationCount = 2
        case 0xED:
            continuationCount = 2
            secondByteRange = 0x80...0x9F
        case 0xF0:
            continuationCount = 3
            secondByteRange = 0x90...0xBF
        case 0xF1...0xF3:
            continuationCount = 3
        case 0xF4:
            continuationCount = 3
            secondByteRange = 0x80...0x8F
        default:
            return nil
        }
        var index = start + 1
        for position in 0..<continuationCount {
            let allowed = position == 0 ? secondByteRange : 0x80...0xBF
            guard index < bytes.endIndex, allowed.contains(bytes[index]) else { return nil }
            index += 1
        }
        return index
    }
}
