extension JSONPatch {
    /// The serialized RFC 6902 patch that turns one document into another, both given in this library's compact
    /// serialization (``JSONValue/serialized()``, a view snapshot's bytes), made without parsing either into a
    /// tree, so a client holding `old` can be brought up to date with less than the whole document.
    ///
    /// - Objects are compared member by member (names in UTF-8 byte order, so the patch is deterministic):
    ///   missing members are removed, new ones added, and changed ones diffed recursively.
    /// - Arrays keep their common prefix and suffix, diff the elements in between pairwise, then `add` the
    ///   extra new elements at explicit increasing indices or `remove` the extra old ones from the highest
    ///   index down, so every index is valid when it is applied. An insertion or removal at the front or in
    ///   the middle is therefore one operation.
    /// - A value whose type changes is replaced, and so is any container whose operations would serialize
    ///   larger than replacing it outright.
    ///
    /// Values are compared by their bytes: strings equal only under Unicode canonical equivalence, and `0.0`
    /// against `-0.0`, count as changed (the patch is still valid and still leads to `new`). Equal documents
    /// give `[]`. Returns nil when either document is not valid JSON in that form (whitespace, names out of
    /// order or repeated, another escape style).
    public static func serializedDiff(fromSerialized old: [UInt8], to new: [UInt8]) -> [UInt8]? {
        CanonicalJSONDiffer.patch(from: old, to: new)
    }

    /// The patch that replaces a whole document with `new` (already serialized): what a client is sent when
    /// ``serializedDiff(fromSerialized:to:)`` cannot read the documents.
    public static func serializedReplacement(with new: [UInt8]) -> [UInt8] {
        var patch: [UInt8] = []
        patch.reserveCapacity(new.count + 36)
        patch.append(utf8: #"[{"op":"replace","path":"","value":"#)
        patch.append(contentsOf: new)
        patch.append(utf8: "}]")
        return patch
    }
}
