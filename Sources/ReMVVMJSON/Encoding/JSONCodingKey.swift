/// The keys the encoder makes up itself: array indices and `"super"`, so coding paths in errors stay complete.
struct JSONCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    /// The key `superEncoder()` uses, as `JSONEncoder` does.
    static let `super` = JSONCodingKey(stringValue: "super")
}
