/// A coding path kept as a linked list, so that going one level deeper costs one node and the
/// `[any CodingKey]` array is only built when someone asks for it (usually an error).
indirect enum CodingPathNode {
    /// The top-level value.
    case root
    /// `key` inside the value at `parent`.
    case child(any CodingKey, parent: CodingPathNode)

    /// The path from the root, as `Encoder.codingPath` wants it.
    var keys: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = self
        while case .child(let key, let parent) = node {
            keys.append(key)
            node = parent
        }
        return keys.reversed()
    }

    /// This path extended by `key`.
    func appending(_ key: any CodingKey) -> CodingPathNode {
        .child(key, parent: self)
    }
}
