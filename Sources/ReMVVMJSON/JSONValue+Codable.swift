extension JSONValue: Codable {
    /// Encodes the document as itself, so a `JSONValue` can sit inside any `Encodable` (a projection holding
    /// free-form data, a wire envelope) and come out unchanged with `JSONEncoder` or `JSONValue(encoding:)`.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements {
                try container.encode(element)
            }
        case .object(let members):
            var container = encoder.container(keyedBy: JSONCodingKey.self)
            for (key, member) in members {
                try container.encode(member, forKey: JSONCodingKey(stringValue: key))
            }
        }
    }

    /// Decodes whatever JSON the decoder holds, so free-form payloads (action arguments, patches sent by
    /// clients) can be decoded with `JSONDecoder` and inspected later.
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: JSONCodingKey.self) {
            var members: [String: JSONValue] = [:]
            for key in container.allKeys {
                members[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
            }
            self = .object(members)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !container.isAtEnd {
                elements.append(try container.decode(JSONValue.self))
            }
            self = .array(elements)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else {
            self = .string(try container.decode(String.self))
        }
    }
}
