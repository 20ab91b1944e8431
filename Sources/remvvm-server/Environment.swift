import ArgumentParser

/// The process environment, read with the same validation as the command-line flags.
struct Environment {
    private let values: [String: String]

    init(_ values: [String: String]) {
        self.values = values
    }

    subscript(name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }

    /// A decimal variable (a rate); a value that is not a number is an error.
    func decimal(_ name: String) throws -> Double? {
        guard let text = self[name] else { return nil }
        guard let number = Double(text), number.isFinite else {
            throw ValidationError("\(name) must be a number, not '\(text)'")
        }
        return number
    }

    /// A numeric variable; a value that is not a number is an error, never silently ignored.
    func number<Number: FixedWidthInteger>(_ name: String) throws -> Number? {
        guard let text = self[name] else { return nil }
        guard let number = Number(text) else { throw ValidationError("\(name) must be a number, not '\(text)'") }
        return number
    }
}
