/// Something an encoder is still filling in; turned into a finished `JSONValue` once encoding returns.
///
/// Containers write finished values straight into their box; only nested containers and super encoders,
/// which can be written after their parent has moved on, are kept as nodes and resolved at the end.
enum JSONEncodingNode {
    /// A value that is already complete.
    case value(JSONValue)
    /// An object a keyed container writes into.
    case object(JSONObjectBox)
    /// An array an unkeyed container writes into.
    case array(JSONArrayBox)
    /// A super encoder; one that encodes nothing stands for `{}`, as with `JSONEncoder`.
    case encoder(JSONValueEncoder)

    /// The completed value.
    func finished() -> JSONValue {
        switch self {
        case .value(let value): value
        case .object(let box): box.finished()
        case .array(let box): box.finished()
        case .encoder(let encoder): encoder.result?.finished() ?? .object([:])
        }
    }
}
