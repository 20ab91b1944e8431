/// A limit on text a user sends: in characters, the limit people read, and in UTF-8 bytes, the one that bounds
/// the memory the server keeps for it.
///
/// Characters alone bound nothing: a character may carry any number of combining marks, so `"a"` followed by
/// 450,000 of them is one character of 900 KB. Every text a store keeps needs both limits. The bytes are counted
/// first (a native string knows its length), so the characters are never counted over an oversized text.
///
/// ```swift
/// if let reason = ChatMiddleware.textLimit.violation(in: action.text, named: "text") {
///     return .block(reason: reason)
/// }
/// ```
public struct TextLimit: Sendable, Equatable {
    /// The most characters (grapheme clusters), as the user counts them.
    public let characters: Int
    /// The most UTF-8 bytes, as the server's memory counts them.
    public let bytes: Int

    /// A limit of `characters` characters and `bytes` UTF-8 bytes.
    public init(characters: Int, bytes: Int) {
        self.characters = characters
        self.bytes = bytes
    }

    /// Why `text` (called `name` in the reason) passes the limit, or nil when it does not.
    public func violation(in text: String, named name: String) -> String? {
        let size = text.utf8.count
        guard size <= bytes else {
            return "the \(name) is \(size) bytes of UTF-8, more than \(bytes)"
        }
        guard text.count <= characters else {
            return "the \(name) is longer than \(characters) characters"
        }
        return nil
    }
}
