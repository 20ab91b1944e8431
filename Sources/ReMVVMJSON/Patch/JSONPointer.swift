/// An RFC 6901 JSON Pointer: the path a patch operation acts on, kept as unescaped reference tokens.
///
/// Tokens are stored unescaped (`"a/b"` is one token) and escaped only when written, `~` as `~0` and `/` as
/// `~1`, so code building paths never has to think about escaping.
public struct JSONPointer: Sendable, Hashable {
    /// The unescaped reference tokens, outermost first; empty for the whole document.
    public var tokens: [String]

    /// A pointer made of already-unescaped tokens.
    public init(tokens: [String] = []) {
        self.tokens = tokens
    }

    /// The pointer to the whole document (`""`).
    public static let root = JSONPointer()

    /// Whether this points at the whole document.
    public var isRoot: Bool { tokens.isEmpty }

    /// The pointer to the container holding the target, or `nil` for the root, which has none.
    public var parent: JSONPointer? {
        isRoot ? nil : JSONPointer(tokens: Array(tokens.dropLast()))
    }

    /// This pointer extended by one (unescaped) token, for building paths while walking a document.
    public func appending(_ token: String) -> JSONPointer {
        JSONPointer(tokens: tokens + [token])
    }

    /// This pointer extended by an array index.
    public func appending(index: Int) -> JSONPointer {
        appending(String(index))
    }

    /// Whether `self` lies strictly inside `other`, which is what makes `move` into one's own child invalid.
    public func isProperDescendant(of other: JSONPointer) -> Bool {
        tokens.count > other.tokens.count && tokens.starts(with: other.tokens)
    }

    /// The array index a token names under RFC 6901: `0` or digits without a leading zero; `nil` for `-` and
    /// anything else, so `"01"` or `"+1"` never silently address element 1.
    static func arrayIndex(_ token: String) -> Int? {
        let utf8 = token.utf8
        guard let first = utf8.first, utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            first != UInt8(ascii: "0") || utf8.count == 1
        else { return nil }
        return Int(token)
    }
}

extension JSONPointer: LosslessStringConvertible {
    /// Parses the string form (`"/a/0/b~1c"`), or returns `nil` when it does not start with `/` or holds a `~`
    /// that is not `~0` or `~1`.
    public init?(_ description: String) {
        guard !description.isEmpty else {
            self.init()
            return
        }
        guard description.hasPrefix("/") else { return nil }
        var tokens: [String] = []
        let escapedTokens = description.utf8.dropFirst().split(
            separator: UInt8(ascii: "/"),
            omittingEmptySubsequences: false
        )
        for escaped in escapedTokens {
            guard let token = Self.unescape(escaped) else { return nil }
            tokens.append(token)
        }
        self.init(tokens: tokens)
    }

    /// The escaped string form, as it appears in a patch document.
    public var description: String {
        var result = ""
        for token in tokens {
            result.append("/")
            if token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) {
                result.append(token.replacing("~", with: "~0").replacing("/", with: "~1"))
            } else {
                result.append(token)
            }
        }
        return result
    }

    private static func unescape(_ escaped: Substring.UTF8View.SubSequence) -> String? {
        guard escaped.contains(UInt8(ascii: "~")) else {
            return String(decoding: escaped, as: UTF8.self)
        }
        var bytes: [UInt8] = []
        var iterator = escaped.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "~") else {
                bytes.append(byte)
                continue
            }
            switch iterator.next() {
            case UInt8(ascii: "0"): bytes.append(UInt8(ascii: "~"))
            case UInt8(ascii: "1"): bytes.append(UInt8(ascii: "/"))
            default: return nil
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension JSONPointer: ExpressibleByArrayLiteral {
    /// Lets a pointer be written as its tokens (`["items", "0"]`), which needs no escaping.
    public init(arrayLiteral tokens: String...) {
        self.init(tokens: tokens)
    }
}
