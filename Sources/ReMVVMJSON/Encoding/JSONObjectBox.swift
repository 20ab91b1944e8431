/// The object a keyed container writes into; a class because every container for one encoder shares it.
final class JSONObjectBox {
    /// Members that are already complete.
    private var members = [String: JSONValue](minimumCapacity: 4)
    /// Members still being written (nested containers, super encoders), applied in order over `members`.
    private var pending: [(key: String, node: JSONEncodingNode)] = []

    /// Stores a complete member, replacing anything written earlier under the same key.
    func set(_ value: JSONValue, forKey key: String) {
        if !pending.isEmpty {
            pending.removeAll { $0.key == key }
        }
        members[key] = value
    }

    /// Stores a member that will be complete once encoding returns.
    func setPending(_ node: JSONEncodingNode, forKey key: String) {
        pending.append((key, node))
    }

    /// The nested object already opened under `key`, so asking twice for the same nested container keeps
    /// both sets of writes.
    func pendingObject(forKey key: String) -> JSONObjectBox? {
        guard case .object(let box) = pending.last(where: { $0.key == key })?.node else { return nil }
        return box
    }

    /// The completed object.
    func finished() -> JSONValue {
        guard !pending.isEmpty else { return .object(members) }
        var result = members
        for (key, node) in pending {
            result[key] = node.finished()
        }
        return .object(result)
    }
}
