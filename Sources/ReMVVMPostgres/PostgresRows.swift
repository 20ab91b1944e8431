import Foundation

/// The rows of a query answered in binary format, copied out of libpq's result.
package struct PostgresRows: Sendable {
    /// Each row's columns: nil for NULL, else the column's binary bytes.
    let rows: [[[UInt8]?]]
    /// Rows changed by an INSERT, UPDATE or DELETE.
    let affected: Int

    /// How many rows.
    package var count: Int { rows.count }

    /// A column's bytes; a NULL is an error.
    package func bytes(_ row: Int, _ column: Int) throws(PostgresError) -> [UInt8] {
        guard let value = rows[row][column] else { throw PostgresError(message: "unexpected NULL in column \(column)") }
        return value
    }

    /// A column's bytes, nil for NULL.
    package func optionalBytes(_ row: Int, _ column: Int) -> [UInt8]? { rows[row][column] }

    /// A `text` column.
    package func text(_ row: Int, _ column: Int) throws(PostgresError) -> String {
        String(decoding: try bytes(row, column), as: UTF8.self)
    }

    /// A `bigint` column.
    package func int64(_ row: Int, _ column: Int) throws(PostgresError) -> Int64 {
        let value = try bytes(row, column)
        guard value.count == 8 else { throw PostgresError(message: "a bigint of \(value.count) bytes") }
        return value.reduce(0) { $0 << 8 | Int64($1) }
    }

    /// An `integer` column.
    package func int32(_ row: Int, _ column: Int) throws(PostgresError) -> Int32 {
        let value = try bytes(row, column)
        guard value.count == 4 else { throw PostgresError(message: "an integer of \(value.count) bytes") }
        return Int32(truncatingIfNeeded: value.reduce(0) { $0 << 8 | Int64($1) })
    }

    /// A `double precision` column.
    package func double(_ row: Int, _ column: Int) throws(PostgresError) -> Double {
        Double(bitPattern: UInt64(bitPattern: try int64(row, column)))
    }

    /// A `bigint` column holding a store version.
    package func version(_ row: Int, _ column: Int) throws(PostgresError) -> UInt64 {
        UInt64(bitPattern: try int64(row, column))
    }
}
