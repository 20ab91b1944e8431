import HTTPTestClient
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON

extension TestResponse {
    /// The body parsed as JSON.
    func json() throws -> JSONValue {
        try JSONValue(parsing: body)
    }

    /// The `Store-Version` header.
    var storeVersion: String? { header("Store-Version") }
}

extension TestServerSentEvent {
    /// The event's data parsed as JSON.
    func json() throws -> JSONValue {
        try JSONValue(parsing: data)
    }
}

extension JSONValue {
    /// The string this value holds, if it is one.
    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The members of an object (empty for anything else).
    var members: [String: JSONValue] {
        if case .object(let members) = self { return members }
        return [:]
    }

    /// The elements of an array (empty for anything else).
    var elements: [JSONValue] {
        if case .array(let elements) = self { return elements }
        return []
    }
}
