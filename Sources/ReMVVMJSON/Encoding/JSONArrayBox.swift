/// The array an unkeyed container writes into; a class because every container for one encoder shares it.
final class JSONArrayBox {
    /// Elements in order; pending ones hold a `.null` placeholder until the end.
    private var elements: [JSONValue] = []
    /// Elements still being written (nested containers, super encoders), by index.
    private var pending: [(index: Int, node: JSONEncodingNode)] = []

    /// The number of elements written so far, which is the next element's index.
    var count: Int { elements.count }

    /// Appends a complete element.
    func append(_ value: JSONValue) {
        elements.append(value)
    }

    /// Appends an element that will be complete once encoding returns.
    func appendPending(_ node: JSONEncodingNode) {
        pending.append((elements.count, node))
        elements.append(.null)
    }

    /// The completed array.
    func finished() -> JSONValue {
        guard !pending.isEmpty else { return .array(elements) }
        var result = elements
        for (index, node) in pending {
            result[index] = node.finished()
        }
        return .array(result)
    }
}
