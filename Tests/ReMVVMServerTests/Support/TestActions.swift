@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON

/// The example app's actions as a client sends them.
enum TestActions {
    static let increase: JSONValue = ["type": "counter/increase"]
    static let decrease: JSONValue = ["type": "counter/decrease"]
    static let logout: JSONValue = ["type": "user/logout"]
    static let loadQuote: JSONValue = ["type": "quote/load", "payload": ["category": "science"]]
    /// Held by ``HoldMiddleware`` until its gate opens (only in ``TestApp/holdingDefinition(gate:)``).
    static let hold: JSONValue = ["type": "test/hold"]

    static func set(_ value: Int64) -> JSONValue {
        ["type": "counter/set", "payload": ["value": .int(value)]]
    }

    static func login(_ firstName: String, _ lastName: String) -> JSONValue {
        ["type": "user/login", "payload": ["firstName": .string(firstName), "lastName": .string(lastName)]]
    }
}
