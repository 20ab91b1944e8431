import CLibPQ
import Foundation

/// One libpq connection, used by one thread at a time (the storage holds it behind a lock).
///
/// Every statement goes through `PQexecParams` with binary parameters and binary results, so
/// values never become SQL text.
package final class PostgresConnection {
    private var handle: OpaquePointer?

    /// Connects to `url` (a libpq URI or keyword string); a `connect_timeout` in it wins over ours.
    package init(url: String, applicationName: String, connectTimeout: Int = 5) throws(PostgresError) {
        let keywords = ["connect_timeout", "application_name", "dbname"]
        let values = ["\(connectTimeout)", applicationName, url]
        let connection = Self.withCStrings(keywords) { keywords in
            Self.withCStrings(values) { values in PQconnectdbParams(keywords, values, 1) }
        }
        guard let connection else { throw PostgresError(message: "out of memory", connectionLost: true) }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.message(PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError(message: "cannot connect to PostgreSQL: \(message)", connectionLost: true)
        }
        // Notices (such as "already exists, skipping") are not errors: not printed to standard error.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
        // Every commit waits for its WAL flush, whatever the server's default: an answer leaves only once durable.
        _ = try execute("SET synchronous_commit = on")
    }

    deinit { close() }

    /// Closes the connection. Idempotent.
    package func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// Whether the connection is still up, as far as libpq knows.
    package var isOpen: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// The server process serving this connection (tests end it to simulate a lost connection).
    package var backendProcess: Int32 { handle.map { PQbackendPID($0) } ?? 0 }

    /// Runs one statement with `parameters` as `$1`, `$2`, ...; its rows in binary format.
    @discardableResult
    package func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> PostgresRows {
        let handle = try openHandle()
        let result = Self.withParameters(parameters) { count, values, lengths, formats in
            PQexecParams(handle, sql, count, nil, values, lengths, formats, 1)
        }
        defer { PQclear(result) }
        return try rows(of: result)
    }

    /// Runs `statements` in one pipeline: sent at once, then one Sync, so they are one implicit
    /// transaction, committed (and, with `synchronous_commit` on, flushed) when this returns, or
    /// rolled back as a whole when one fails. One network round trip, whatever their number.
    func pipeline(_ statements: [(sql: String, parameters: [PostgresValue])]) throws(PostgresError) -> [PostgresRows] {
        let handle = try openHandle()
        guard PQenterPipelineMode(handle) == 1 else { throw failure("cannot enter pipeline mode") }
        defer { PQexitPipelineMode(handle) }
        for statement in statements {
            let sent = Self.withParameters(statement.parameters) { count, values, lengths, formats in
                PQsendQueryParams(handle, statement.sql, count, nil, values, lengths, formats, 1)
            }
            guard sent == 1 else { throw failure("cannot send a statement") }
        }
        guard PQpipelineSync(handle) == 1 else { throw failure("cannot send the pipeline's sync") }
        var results: [PostgresRows] = []
        var firstError: PostgresError?
        for _ in statements {
            guard let result = PQgetResult(handle) else { throw failure("the pipeline ended early") }
            defer { PQclear(result) }
            if PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
                results.append(PostgresRows(rows: [], affected: 0))
            } else {
                do {
                    results.append(try rows(of: result))
                } catch {
                    firstError = firstError ?? error
                    results.append(PostgresRows(rows: [], affected: 0))
                }
            }
            // Each statement's results end with a NULL.
            while let extra = PQgetResult(handle) { PQclear(extra) }
        }
        guard let sync = PQgetResult(handle) else { throw failure("no answer to the pipeline's sync") }
        let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
        if let firstError { throw firstError }
        guard synced else { throw failure("the pipeline's sync failed") }
        return results
    }

    /// The connection's socket, to wait on for notifications; -1 when closed.
    var socket: Int32 { handle.map { PQsocket($0) } ?? -1 }

    /// Reads what the server sent and returns the notifications (`LISTEN`) received so far, as
    /// (channel, payload) pairs.
    func notifications() throws(PostgresError) -> [(channel: String, payload: String)] {
        let handle = try openHandle()
        guard PQconsumeInput(handle) == 1 else { throw failure("cannot read from PostgreSQL") }
        var received: [(channel: String, payload: String)] = []
        while let notify = PQnotifies(handle) {
            received.append((String(cString: notify.pointee.relname), String(cString: notify.pointee.extra)))
            PQfreemem(notify)
        }
        return received
    }

    private func openHandle() throws(PostgresError) -> OpaquePointer {
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            throw PostgresError(message: "the connection to PostgreSQL is closed", connectionLost: true)
        }
        return handle
    }

    private func failure(_ what: String) -> PostgresError {
        PostgresError(message: "\(what): \(Self.message(handle.flatMap { PQerrorMessage($0) }))", connectionLost: true)
    }

    /// The result's rows, or its error.
    private func rows(of result: OpaquePointer?) throws(PostgresError) -> PostgresRows {
        guard let result else {
            throw PostgresError(message: Self.message(handle.flatMap { PQerrorMessage($0) }), connectionLost: !isOpen)
        }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let state = remvvm_pq_sqlstate(result).map { String(cString: $0) }
            let message = Self.message(PQresultErrorMessage(result))
            // Class 08: connection exceptions; 57P: the server shuts down or ended this backend.
            let lost = !isOpen || state?.hasPrefix("08") == true || state?.hasPrefix("57P") == true
            throw PostgresError(
                state: state, message: message, connectionLost: lost, fenced: state == Self.fencedState,
                detail: remvvm_pq_detail(result).map { String(cString: $0) })
        }
        return Self.rows(of: result)
    }

    /// The SQLSTATE `remvvm_check_fences` raises when another node holds a session.
    static let fencedState = "RV001"

    /// Calls `body` with the parameters as libpq's arrays: values, lengths and formats (all binary).
    private static func withParameters<Result>(
        _ parameters: [PostgresValue],
        _ body: (Int32, [UnsafePointer<CChar>?], [Int32], [Int32]) -> Result
    ) -> Result {
        let wires = parameters.map(\.wire)
        let lengths = wires.map { Int32($0?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: wires.count)
        let buffers: [UnsafeMutablePointer<CChar>?] = wires.map { wire in
            guard let wire else { return nil }
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(wire.count, 1))
            wire.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: bytes.count)
            }
            return buffer
        }
        defer { for buffer in buffers { buffer?.deallocate() } }
        return body(Int32(wires.count), buffers.map { $0.map { UnsafePointer($0) } }, lengths, formats)
    }

    private static func rows(of result: OpaquePointer) -> PostgresRows {
        let count = Int(PQntuples(result))
        let columns = Int(PQnfields(result))
        var rows: [[[UInt8]?]] = []
        rows.reserveCapacity(count)
        for row in 0..<count {
            var values: [[UInt8]?] = []
            values.reserveCapacity(columns)
            for column in 0..<columns {
                let (r, c) = (Int32(row), Int32(column))
                guard PQgetisnull(result, r, c) == 0, let value = PQgetvalue(result, r, c) else {
                    values.append(nil)
                    continue
                }
                let length = Int(PQgetlength(result, r, c))
                values.append(Array(UnsafeRawBufferPointer(start: value, count: length)))
            }
            rows.append(values)
        }
        let affected = PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
        return PostgresRows(rows: rows, affected: affected)
    }

    private static func message(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "unknown error" }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Calls `body` with the strings as a NULL-terminated array of C strings.
    private static func withCStrings<Result>(
        _ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> Result
    ) -> Result {
        let copies = strings.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        let pointers = copies.map { $0.map { UnsafePointer($0) } } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}
