extension JSONPatch {
    /// The patch that turns `old` into `new`, so a client holding `old` can be brought up to date with less
    /// than the whole document.
    ///
    /// - Objects are compared key by key: missing keys are removed, new keys added, and changed members
    ///   diffed recursively (keys in UTF-8 byte order, so the patch is deterministic).
    /// - Arrays keep their common prefix and suffix, diff the elements in between pairwise, then `add` the
    ///   extra new elements at explicit increasing indices or `remove` the extra old ones from the highest
    ///   index down, so every index is valid when it is applied. An insertion or removal at the front or in
    ///   the middle is therefore one operation.
    /// - A value whose type changes is replaced, and so is any container whose operations would serialize
    ///   larger than replacing it outright.
    ///
    /// Equal values give the empty patch, and `try diff(from: a, to: b).apply(to: a) == b` always holds.
    public static func diff(from old: JSONValue, to new: JSONValue) -> JSONPatch {
        var differ = JSONPatchDiffer()
        differ.diff(old, new)
        return JSONPatch(operations: differ.operations)
    }
}

extension JSONPatch {
    /// The serialized patch from one document to another, both given in this library's compact serialization
    /// (``JSONValue/serialized()``, ``ViewSnapshot/jsonBytes()``), made without parsing either into a tree.
    ///
    /// It writes the bytes `diff(from:to:).serialized()` writes for the parsed documents, except that values
    /// are compared by their bytes: strings equal only under Unicode canonical equivalence, `0.0` against
    /// `-0.0`, and numbers written another way than serialization writes them count as changed (the patch is
    /// still valid and still leads to `new`). Returns nil when either document is not valid JSON in that form
    /// (whitespace, names out of order or repeated, another escape style); diff the trees then.
    public static func serializedDiff(fromSerialized old: [UInt8], to new: [UInt8]) -> [UInt8]? {
        CanonicalJSONDiffer.patch(from: old, to: new)
    }
}
