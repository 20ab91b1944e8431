/// An ordered list of HTTP header fields with case-insensitive names.
///
/// HTTP field names are case-insensitive, some fields legitimately repeat (`Set-Cookie`), and the order of
/// repeated fields carries meaning, so a dictionary is the wrong shape: this keeps every field in the order it
/// was added and compares names ASCII-case-insensitively without allocating.
public struct HTTPHeaders: Sendable, ExpressibleByDictionaryLiteral, Sequence, Equatable {
    /// One header field; the name keeps the spelling it was added with.
    public typealias Element = (name: String, value: String)

    private var fields: [Field]

    /// Creates an empty header list, the starting point for building a response.
    public init() {
        fields = []
    }

    /// Creates an empty header list with room for `minimumCapacity` fields, so building a known number of
    /// fields allocates once.
    public init(minimumCapacity: Int) {
        fields = []
        fields.reserveCapacity(minimumCapacity)
    }

    /// Creates a header list from name/value pairs, keeping their order and duplicates.
    public init(_ pairs: [(name: String, value: String)]) {
        fields = pairs.map { Field(name: $0.name, value: $0.value) }
    }

    /// Creates a header list from a literal such as `["Content-Type": "application/json"]`.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The number of fields, duplicates included.
    public var count: Int { fields.count }

    /// Whether there are no fields at all.
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value of the field `name` (any case), or `nil`; assigning replaces every field of that name,
    /// and assigning `nil` removes them, which is what a caller setting a single-valued header means.
    public subscript(name: String) -> String? {
        get {
            // Read in place: `first(where:)` would copy (retain and release) every field it passes. Names of
            // another length are passed over before any call: a browser's request has a dozen fields.
            let length = name.utf8.count
            return fields.withUnsafeBufferPointer { fields in
                for index in fields.indices
                where fields[index].name.utf8.count == length && Self.namesMatch(fields[index].name, name) {
                    return fields[index].value
                }
                return nil
            }
        }
        set {
            guard let newValue else {
                remove(name)
                return
            }
            guard let index = fields.firstIndex(where: { Self.namesMatch($0.name, name) }) else {
                fields.append(Field(name: name, value: newValue))
                return
            }
            // Keep the position of the first occurrence, drop the others.
            var kept = Array(fields[..<index])
            kept.append(Field(name: name, value: newValue))
            kept.append(contentsOf: fields[(index + 1)...].filter { !Self.namesMatch($0.name, name) })
            fields = kept
        }
    }

    /// Every value of the field `name` (any case), in order; needed for repeatable fields such as `Set-Cookie`.
    public func values(for name: String) -> [String] {
        fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    /// Whether at least one field is called `name` (any case).
    public func contains(_ name: String) -> Bool {
        let length = name.utf8.count
        return fields.withUnsafeBufferPointer { fields in
            fields.indices.contains { fields[$0].name.utf8.count == length && Self.namesMatch(fields[$0].name, name) }
        }
    }

    /// Calls `body` with every field in order, read in place (no copy of each name and value), as the
    /// transport does for every response header.
    func forEachField(_ body: (_ name: String, _ value: String) -> Void) {
        fields.withUnsafeBufferPointer { fields in
            for index in fields.indices { body(fields[index].name, fields[index].value) }
        }
    }

    /// Appends a field even if one of that name exists, as repeatable fields require.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field called `name` (any case).
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.namesMatch($0.name, name) }
    }

    /// Iterates the fields in the order they were added.
    public func makeIterator() -> Iterator {
        Iterator(base: fields.makeIterator())
    }

    /// Two header lists are equal when they hold the same fields in the same order, names compared
    /// case-insensitively.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { namesMatch($0.name, $1.name) && $0.value == $1.value }
    }

    /// Walks the fields of an `HTTPHeaders` in order.
    public struct Iterator: IteratorProtocol {
        fileprivate var base: IndexingIterator<[Field]>

        /// Returns the next field, or `nil` after the last.
        public mutating func next() -> (name: String, value: String)? {
            guard let field = base.next() else { return nil }
            return (name: field.name, value: field.value)
        }
    }

    fileprivate struct Field: Sendable {
        var name: String
        var value: String
    }

    /// Compares two field names ASCII-case-insensitively (HTTP names are ASCII tokens) without allocating.
    ///
    /// It runs for every header lookup and every response header, so it reads both names' bytes in place
    /// (native and small strings always have them contiguous) rather than through two UTF-8 iterators.
    static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }  // O(1) for native strings.
        let inPlace = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in bytesMatch(left, right) }
        }
        if let inPlace, let result = inPlace { return result }
        // Bridged strings only.
        return Array(lhs.utf8).withUnsafeBufferPointer { left in
            Array(rhs.utf8).withUnsafeBufferPointer { right in bytesMatch(left, right) }
        }
    }

    private static func bytesMatch(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        // An indexed loop, not `zip`'s generic iterators: it runs for every header lookup.
        for index in 0..<Swift.min(left.count, right.count) {
            let l = left[index]
            let r = right[index]
            if l != r && lowercased(l) != lowercased(r) { return false }
        }
        return true
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }
}
