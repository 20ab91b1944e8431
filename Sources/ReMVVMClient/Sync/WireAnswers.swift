import Foundation
import ReMVVMJSON

/// The JSON answers of the v1 API, read from their bytes with the project's own parser.
enum WireAnswer {
    /// The body as a JSON object.
    static func object(_ body: Data) throws(ClientError) -> [String: JSONValue] {
        guard let value = try? JSONValue(parsing: [UInt8](body)), case .object(let members) = value else {
            throw ClientError(.invalidAnswer, detail: "the answer is not a JSON object")
        }
        return members
    }

    /// A version field.
    static func version(_ value: JSONValue?, _ field: String) throws(ClientError) -> StoreVersion {
        guard case .string(let text)? = value else {
            throw ClientError(.invalidAnswer, detail: "the answer has no '\(field)' version")
        }
        return StoreVersion(text)
    }

    /// A `views` field: an object by view name.
    static func views(_ value: JSONValue?) throws(ClientError) -> [String: JSONValue] {
        guard case .object(let views)? = value else {
            throw ClientError(.invalidAnswer, detail: "the answer has no 'views' object")
        }
        return views
    }
}
