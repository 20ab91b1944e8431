/// The rules every topic name follows, checked when it is published to or subscribed to.
///
/// A name is 1 to ``maxLength`` characters, none of them a control character or a line break, and
/// neither starting nor ending with white space: `room/lobby`, `chat/Café`, `orders/42`.
public enum TopicName {
    /// The longest name, in characters.
    public static let maxLength = 256

    /// Throws a ``TopicError`` naming what is wrong with `name`, if anything.
    public static func validate(_ name: String) throws(TopicError) {
        guard !name.isEmpty else { throw TopicError(.invalidName, "a topic name cannot be empty") }
        var count = 0
        for scalar in name.unicodeScalars {
            count += 1
            guard count <= maxLength else {
                throw TopicError(
                    .invalidName, "topic name '\(name.prefix(32))…' is longer than \(maxLength) characters")
            }
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator, .format, .surrogate, .unassigned, .privateUse:
                throw TopicError(
                    .invalidName,
                    "topic name '\(name.prefix(64).unicodeScalars.map { $0.escaped(asASCII: true) }.joined())' "
                        + "holds a control or invisible character (U+\(String(scalar.value, radix: 16, uppercase: true)))"
                )
            default: continue
            }
        }
        if let first = name.unicodeScalars.first, let last = name.unicodeScalars.last,
            first.properties.isWhitespace || last.properties.isWhitespace
        {
            throw TopicError(.invalidName, "topic name '\(name.prefix(64))' starts or ends with white space")
        }
    }
}
