/// A session version, `<epoch>.<n>`: the server's cursor into the session's history.
///
/// Opaque to apps; the client compares two versions of one epoch to tell which is older.
public struct StoreVersion: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The version as the server writes it.
    public let rawValue: String

    /// Wraps a version the server sent.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// The history the version belongs to.
    var epoch: Substring? {
        rawValue.lastIndex(of: ".").map { rawValue[..<$0] }
    }

    /// The count of commits.
    var number: UInt64? {
        rawValue.lastIndex(of: ".").flatMap { UInt64(rawValue[rawValue.index(after: $0)...]) }
    }

    /// Whether this is an older version of the same history as `other`.
    func isBehind(_ other: StoreVersion) -> Bool {
        guard let epoch, epoch == other.epoch, let number, let otherNumber = other.number else { return false }
        return number < otherNumber
    }

    /// Whether a replica at this version already holds everything up to `other`: the same history at `other` or
    /// later, or another history (a reset replaced what `other` belonged to).
    func holds(_ other: StoreVersion) -> Bool {
        !isBehind(other)
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
