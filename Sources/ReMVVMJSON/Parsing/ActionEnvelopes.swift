/// What a dispatch body holds, as ``JSONParser/parseActionEnvelopes()`` reads it: the members of each action
/// envelope, with the shape problems left for the action registry to name.
public enum ActionEnvelopes: Sendable {
    /// One envelope object.
    case single(Item)
    /// An array of them (a batch), possibly empty.
    case batch([Item])
    /// A document that is neither an object nor an array.
    case neither

    /// One element of the body.
    public enum Item: Sendable {
        /// An object, with its `type` and `payload` members when it has them.
        case action(type: Member?, payload: JSONValue?)
        /// A batch element that is not an object.
        case notAnObject(JSONValue)
    }

    /// The value of an envelope's `type` member.
    public enum Member: Sendable {
        /// A string without escapes: where its UTF-8 bytes are in the body.
        case utf8(Range<Int>)
        /// Anything else, parsed: an escaped string, or a value that is not a string at all.
        case value(JSONValue)
    }
}
