import Foundation
import ReMVVMJSON
import Testing

/// A `DecodingError` reduced to what parity with `JSONDecoder` compares: the case, the type or key it names,
/// the coding path (indices marked with their `intValue`) and the message.
struct DecodingErrorSummary: Equatable, Sendable, CustomStringConvertible {
    let kind: String
    let subject: String
    let path: String
    let message: String

    init(_ error: any Error) {
        guard let error = error as? DecodingError else {
            (kind, subject, path, message) = ("not a DecodingError", "\(type(of: error))", "", "\(error)")
            return
        }
        let context: DecodingError.Context
        switch error {
        case .typeMismatch(let type, let errorContext):
            (kind, subject, context) = ("typeMismatch", "\(type)", errorContext)
        case .valueNotFound(let type, let errorContext):
            (kind, subject, context) = ("valueNotFound", "\(type)", errorContext)
        case .keyNotFound(let key, let errorContext):
            (kind, subject, context) = ("keyNotFound", Self.dotted([key]), errorContext)
        case .dataCorrupted(let errorContext):
            (kind, subject, context) = ("dataCorrupted", "", errorContext)
        @unknown default:
            (kind, subject, context) = ("unknown", "", DecodingError.Context(codingPath: [], debugDescription: ""))
        }
        path = Self.dotted(context.codingPath)
        message = context.debugDescription
    }

    var description: String { "\(kind)(\(subject)) at '\(path)': \(message)" }

    /// Keys joined with dots, each index written as `Index 1#1` so a missing `intValue` shows.
    static func dotted(_ path: [any CodingKey]) -> String {
        path.map { key in key.intValue.map { "\(key.stringValue)#\($0)" } ?? key.stringValue }
            .joined(separator: ".")
    }
}

/// What one decode gave: a value (described, for messages) or an error.
enum DecodingOutcome: Equatable, Sendable, CustomStringConvertible {
    case value(String)
    case error(DecodingErrorSummary)

    var description: String {
        switch self {
        case .value(let value): "value \(value)"
        case .error(let error): "error \(error)"
        }
    }

    var error: DecodingErrorSummary? {
        if case .error(let error) = self { error } else { nil }
    }
}

/// One JSON text decoded as one type both ways; the closure hides the type so one table can hold them all.
struct DecodingParityCase: Sendable, CustomTestStringConvertible {
    let name: String
    let json: String
    let decodeBothWays: @Sendable () throws -> (mine: DecodingOutcome, reference: DecodingOutcome, equal: Bool)

    var testDescription: String {
        "\(name): \(json.split(whereSeparator: \.isNewline).joined(separator: " "))"
    }

    static func of<Value: Decodable & Equatable & Sendable>(
        _ type: Value.Type,
        _ json: String,
        _ name: String? = nil
    ) -> DecodingParityCase {
        DecodingParityCase(name: name ?? "\(Value.self)", json: json) {
            try decodeBothWays(Value.self, json)
        }
    }

    /// Decodes `json` with `JSONValue(parsing:)` and `decode`, and with `JSONDecoder`.
    static func decodeBothWays<Value: Decodable & Equatable>(
        _ type: Value.Type,
        _ json: String
    ) throws -> (mine: DecodingOutcome, reference: DecodingOutcome, equal: Bool) {
        let document = try JSONValue(parsing: json)
        let mine = Result { try document.decode(Value.self) }
        let reference = Result { try JSONDecoder().decode(Value.self, from: Data(json.utf8)) }
        let equal =
            switch (mine, reference) {
            case (.success(let mine), .success(let reference)): mine == reference
            default: false
            }
        return (outcome(mine), outcome(reference), equal)
    }

    private static func outcome<Value>(_ result: Result<Value, any Error>) -> DecodingOutcome {
        switch result {
        case .success(let value): .value(String(describing: value))
        case .failure(let error): .error(DecodingErrorSummary(error))
        }
    }
}
