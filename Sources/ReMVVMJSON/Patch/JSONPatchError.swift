/// Why a patch could not be read or applied, naming the operation and the path involved so a client can tell
/// which of its operations failed.
public struct JSONPatchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The broad class of failure, for mapping to a response status; a struct so kinds can be added without
    /// breaking exhaustive switches.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Code: String {
            case malformedOperation = "malformed operation"
            case pathNotFound = "path not found"
            case testFailed = "test failed"
            case invalidOperation = "invalid operation"
        }

        private let code: Code

        private init(_ code: Code) {
            self.code = code
        }

        /// The patch document is not a valid RFC 6902 document (missing `op`, bad pointer, and so on).
        public static let malformedOperation = Kind(.malformedOperation)
        /// A location the operation needs does not exist (or is not inside a container).
        public static let pathNotFound = Kind(.pathNotFound)
        /// A `test` operation found a different value.
        public static let testFailed = Kind(.testFailed)
        /// The operation can never succeed, such as moving a value into its own child or removing the root.
        public static let invalidOperation = Kind(.invalidOperation)

        /// The kind in words.
        public var description: String { code.rawValue }
    }

    /// The broad class of failure.
    public var kind: Kind
    /// The zero-based index of the failing operation in the patch.
    public var operationIndex: Int
    /// The JSON Pointer (in its string form) that could not be used, or `nil` when the document did not name one.
    public var path: String?
    /// What went wrong, in words suitable for an error response.
    public var reason: String

    /// Creates an error; package so callers validating patches of their own can report the same way.
    public init(kind: Kind, operationIndex: Int, path: String?, reason: String) {
        self.kind = kind
        self.operationIndex = operationIndex
        self.path = path
        self.reason = reason
    }

    /// The failure with its operation and path, as a client would want to read it.
    public var description: String {
        let location = path.map { " at path \"\($0)\"" } ?? ""
        return "JSON Patch operation \(operationIndex)\(location): \(kind): \(reason)"
    }
}
