import CLibPQ
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One libpq connection, used by one thread at a time (the storage holds it behind a lock).
///
/// Every statement goes through `PQsendQueryParams` with binary parameters and binary results, so
/// values never become SQL text.
///
/// Every call has a deadline (``PostgresTimeouts/call``): the connection is in libpq's non-blocking mode, and
/// each call sends, then waits with `poll()` on the socket for at most what is left of its deadline; past it the
/// connection is closed (the next call connects again) and the call fails as a lost connection.
///
/// Chosen over postgres-nio by measurement (`SELECT $1::integer` over loopback, 3 rounds of 20,000 calls on the
/// busy 2-core build machine: blocking `PQexecParams` 69 to 79 µs, send + `poll()` 66 to 77 µs per call, the same
/// within the noise): the deadline costs nothing measurable, and needs no event-loop threads beside the writer's
/// own, no rewrite of the storage, and none of postgres-nio's 2.5 to 4.5 minutes of extra build. libpq 15 has no
/// non-blocking cancel (`PQcancel` itself blocks on a frozen server),
/// so a call past its deadline is not cancelled but its connection closed; the server's own `statement_timeout`
/// and `lock_timeout` end what it was doing.
package final class PostgresConnection {
    private var handle: OpaquePointer?
    /// The deadlines of this connection's calls.
    let timeouts: PostgresTimeouts

    /// Connects to `url` (a libpq URI or keyword string) within `timeouts.call`; the URL's own
    /// settings (`connect_timeout`, `options`, keepalives) win over those `timeouts` sets.
    package init(
        url: String, applicationName: String, timeouts: PostgresTimeouts = PostgresTimeouts()
    ) throws(PostgresError) {
        self.timeouts = timeouts
        let deadline = Deadline(after: timeouts.call)
        let parameters = timeouts.connectionParameters + [("application_name", applicationName), ("dbname", url)]
        let connection = Self.withCStrings(parameters.map(\.0)) { keywords in
            Self.withCStrings(parameters.map(\.1)) { values in PQconnectStartParams(keywords, values, 1) }
        }
        guard let connection else { throw PostgresError(message: "out of memory", connectionLost: true) }
        handle = connection
        try finishConnecting(connection, deadline)
        // Notices (such as "already exists, skipping") are not errors: not printed to standard error.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        guard PQsetnonblocking(connection, 1) == 0 else {
            close()
            throw PostgresError(message: "cannot make the connection non-blocking", connectionLost: true)
        }
        // Every commit waits for its WAL flush, whatever the server's default: an answer leaves only once durable.
        _ = try execute("SET synchronous_commit = on")
    }

    /// Drives `PQconnectPoll` until the connection is up, failing (and closing it) past `deadline`.
    private func finishConnecting(_ connection: OpaquePointer, _ deadline: Deadline) throws(PostgresError) {
        var polling = PGRES_POLLING_WRITING
        while true {
            guard PQstatus(connection) != CONNECTION_BAD, polling != PGRES_POLLING_FAILED else {
                let message = Self.message(PQerrorMessage(connection))
                close()
                throw PostgresError(message: "cannot connect to PostgreSQL: \(message)", connectionLost: true)
            }
            if polling == PGRES_POLLING_OK { return }
            let ready = Self.wait(
                PQsocket(connection), events: Int16(polling == PGRES_POLLING_READING ? POLLIN : POLLOUT), deadline)
            guard ready else {
                close()
                throw PostgresError(
                    message: "cannot connect to PostgreSQL: no answer within \(timeouts.call)", connectionLost: true,
                    timedOut: true)
            }
            polling = PQconnectPoll(connection)
        }
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

    /// Runs one statement with `parameters` as `$1`, `$2`, ...; its rows in binary format. Fails, closing the
    /// connection, when the answer does not come within the call deadline.
    @discardableResult
    package func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> PostgresRows {
        let handle = try openHandle()
        let deadline = Deadline(after: timeouts.call)
        let sent = Self.withParameters(parameters) { count, values, lengths, formats in
            PQsendQueryParams(handle, sql, count, nil, values, lengths, formats, 1)
        }
        guard sent == 1 else { throw failure("cannot send a statement") }
        try flush(handle, deadline)
        var rows: PostgresRows?
        var firstError: PostgresError?
        while let result = try nextResult(handle, deadline) {
            defer { PQclear(result) }
            do {
                let read = try self.rows(of: result)
                rows = rows ?? read
            } catch {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
        guard let rows else { throw failure("no answer to a statement") }
        return rows
    }

    /// Runs `statements` in one pipeline: sent at once, then one Sync, so they are one implicit
    /// transaction, committed (and, with `synchronous_commit` on, flushed) when this returns, or
    /// rolled back as a whole when one fails. One network round trip, whatever their number.
    func pipeline(_ statements: [(sql: String, parameters: [PostgresValue])]) throws(PostgresError) -> [PostgresRows] {
        let handle = try openHandle()
        let deadline = Deadline(after: timeouts.call)
        guard PQenterPipelineMode(handle) == 1 else { throw failure("cannot enter pipeline mode") }
        defer { if let open = self.handle { PQexitPipelineMode(open) } }
        for statement in statements {
            let sent = Self.withParameters(statement.parameters) { count, values, lengths, formats in
                PQsendQueryParams(handle, statement.sql, count, nil, values, lengths, formats, 1)
            }
            guard sent == 1 else { throw failure("cannot send a statement") }
        }
        guard PQpipelineSync(handle) == 1 else { throw failure("cannot send the pipeline's sync") }
        try flush(handle, deadline)
        var results: [PostgresRows] = []
        var firstError: PostgresError?
        for _ in statements {
            guard let result = try nextResult(handle, deadline) else { throw failure("the pipeline ended early") }
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
            while let extra = try nextResult(handle, deadline) { PQclear(extra) }
        }
        guard let sync = try nextResult(handle, deadline) else { throw failure("no answer to the pipeline's sync") }
        let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
        if let firstError { throw firstError }
        guard synced else { throw failure("the pipeline's sync failed") }
        return results
    }

    /// Sends what libpq buffered, reading meanwhile what the server sends back (so that neither side blocks on a
    /// full buffer), until all is sent or `deadline` passes.
    private func flush(_ handle: OpaquePointer, _ deadline: Deadline) throws(PostgresError) {
        while true {
            let flushed = PQflush(handle)
            if flushed == 0 { return }
            guard flushed > 0 else { throw failure("cannot send to PostgreSQL") }
            try waitReady(handle, events: Int16(POLLIN | POLLOUT), deadline)
            guard PQconsumeInput(handle) == 1 else { throw failure("cannot read from PostgreSQL") }
        }
    }

    /// The next result of the call in progress (nil once it has no more), waiting for it until `deadline`.
    private func nextResult(_ handle: OpaquePointer, _ deadline: Deadline) throws(PostgresError) -> OpaquePointer? {
        while PQisBusy(handle) == 1 {
            try waitReady(handle, events: Int16(POLLIN), deadline)
            guard PQconsumeInput(handle) == 1 else { throw failure("cannot read from PostgreSQL") }
        }
        return PQgetResult(handle)
    }

    /// Waits until the socket is ready for `events`; past `deadline`, closes the connection and fails.
    private func waitReady(_ handle: OpaquePointer, events: Int16, _ deadline: Deadline) throws(PostgresError) {
        guard Self.wait(PQsocket(handle), events: events, deadline) else {
            close()
            throw PostgresError(
                message: "PostgreSQL did not answer within \(timeouts.call); the connection was closed",
                connectionLost: true, timedOut: true)
        }
    }

    /// Waits with `poll()` until `socket` is ready for `events` (or has an error); false once `deadline` passed.
    private static func wait(_ socket: Int32, events: Int16, _ deadline: Deadline) -> Bool {
        guard socket >= 0 else { return true }
        while true {
            let remaining = deadline.remainingMilliseconds
            guard remaining > 0 else { return false }
            var descriptor = pollfd(fd: socket, events: events, revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(remaining, Int(Int32.max))))
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return true }
        }
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
