import Foundation

/// A statement parameter, sent in PostgreSQL's binary format: raw UTF-8 for text, raw bytes
/// for bytea, big-endian integers and floats. Nothing is spliced into SQL text.
package enum PostgresValue: Sendable {
    case text(String)
    case bytes([UInt8])
    case int64(Int64)
    case int32(Int32)
    case double(Double)
    case null

    /// The wire bytes; nil for SQL NULL.
    var wire: [UInt8]? {
        switch self {
        case .text(let text): Array(text.utf8)
        case .bytes(let bytes): bytes
        case .int64(let value): withUnsafeBytes(of: value.bigEndian, Array.init)
        case .int32(let value): withUnsafeBytes(of: value.bigEndian, Array.init)
        case .double(let value): withUnsafeBytes(of: value.bitPattern.bigEndian, Array.init)
        case .null: nil
        }
    }

    /// An unsigned version, stored in a bigint.
    package static func version(_ version: UInt64) -> PostgresValue { .int64(Int64(bitPattern: version)) }

    /// Bytes from `Data`.
    package static func data(_ data: Data) -> PostgresValue { .bytes(Array(data)) }
}
