/// Why a JSON action could not be turned into a typed ``StoreAction``.
///
/// The HTTP layer turns it into a 422 answer (403 for ``Reason/serverOnly(_:)``), so it names the offending
/// type or field, and what to send instead where it can tell.
@_spi(ReMVVMServer) public struct ActionDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in the terms a client can act on.
    @_spi(ReMVVMServer) public enum Reason: Sendable, Equatable {
        /// The body is not valid JSON.
        case malformedJSON(String)
        /// The envelope is not `{"type": String, "payload": {...}}` (or an array of such).
        case malformedEnvelope(String)
        /// No action is registered under this wire name.
        case unknownType(String)
        /// A client sent an action type the app dispatches only itself (an effect's result, a topic's
        /// message): not one of its ``StoreDefinition/clientActions``.
        case serverOnly(String)
        /// The payload does not decode into the registered type; `field` is a dotted path (empty for the root).
        case invalidPayload(type: String, field: String, problem: String)
        /// A batch with no actions in it.
        case emptyBatch
    }

    /// What went wrong.
    @_spi(ReMVVMServer) public let reason: Reason
    /// The position of the action in a batch, when the body was an array.
    @_spi(ReMVVMServer) public let index: Int?
    /// The action types clients may send, sorted, when a client sent a type it may not send or an unknown one.
    @_spi(ReMVVMServer) public internal(set) var clientTypes: [String]?
    /// How to fix the request, when the error can tell (fields sent beside `type` rather than inside `payload`).
    @_spi(ReMVVMServer) public internal(set) var hint: String?

    /// Creates an error for the action at `index` (nil for a single action).
    @_spi(ReMVVMServer) public init(_ reason: Reason, index: Int? = nil) {
        self.reason = reason
        self.index = index
    }

    /// The action's wire name, when it is known.
    @_spi(ReMVVMServer) public var actionType: String? {
        switch reason {
        case .unknownType(let type), .serverOnly(let type), .invalidPayload(let type, _, _): type
        case .malformedJSON, .malformedEnvelope, .emptyBatch: nil
        }
    }

    /// The offending payload field, when there is one.
    @_spi(ReMVVMServer) public var field: String? {
        if case .invalidPayload(_, let field, _) = reason { return field }
        return nil
    }

    @_spi(ReMVVMServer) public var description: String {
        let position = index.map { "action \($0): " } ?? ""
        switch reason {
        case .malformedJSON(let problem):
            return "malformed JSON: \(problem)"
        case .malformedEnvelope(let problem):
            return "\(position)\(problem)"
        case .unknownType(let type):
            return "\(position)unknown action type '\(type)'\(sendableList)"
        case .serverOnly(let type):
            return "\(position)'\(type)' is dispatched by the server only; clients may not send it\(sendableList)"
        case .invalidPayload(let type, let field, let problem):
            let place = field.isEmpty ? "payload" : "payload field '\(field)'"
            let fix = hint.map { "; \($0)" } ?? ""
            return "\(position)\(place) of '\(type)' is invalid: \(problem)\(fix)"
        case .emptyBatch:
            return "a batch must contain at least one action"
        }
    }

    /// "; clients may send: a, b" when the error lists them.
    private var sendableList: String {
        guard let clientTypes else { return "" }
        return clientTypes.isEmpty
            ? "; the app lets clients send no action type (StoreDefinition's clientActions)"
            : "; clients may send: \(clientTypes.joined(separator: ", "))"
    }
}
