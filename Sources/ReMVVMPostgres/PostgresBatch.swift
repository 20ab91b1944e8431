import Foundation
import ReMVVMPersistence

/// One group-commit batch turned into statements of one transaction: the log rows and the
/// idempotency keys of every session go in multi-row INSERTs (a round trip per table, not per
/// commit), and the fences of every session written are checked last, holding their lease rows
/// until COMMIT so that a takeover waits for it (or this batch sees the takeover and is refused).
struct PostgresBatch {
    let node: String
    /// The fences this node holds, with those of the sessions this batch creates or deletes.
    var fences: [String: Int64]
    private var logRows: [(session: String, commit: StoredCommit)] = []
    private var keyRows: [(session: String, key: StoredIdempotencyKey)] = []
    /// Sessions whose log, snapshot or keys this batch writes: their fences are checked.
    private var written: Set<String> = []

    /// Rows per multi-row INSERT (PostgreSQL takes at most 65,535 parameters per statement).
    private static let rowsPerInsert = 1_000

    init(node: String, fences: [String: Int64]) {
        self.node = node
        self.fences = fences
    }

    /// Applies `changes` in order, then checks the fences; throws a fenced error when one moved.
    mutating func apply(_ changes: [StorageChange], in connection: PostgresConnection) throws(PostgresError) {
        for change in Self.foldingAnswers(changes) {
            switch change {
            case .create(let record):
                try create(record, in: connection)
            case .append(let session, let commits):
                logRows += commits.map { (session, $0) }
                written.insert(session)
            case .remember(let session, let key):
                keyRows.append((session, key))
                written.insert(session)
            case .answer(let session, let key, let answer):
                try flush(in: connection)
                try connection.execute(
                    "UPDATE idempotency SET answer = $3::bytea WHERE session = $1::text AND key = $2::text",
                    [.text(session), .text(key), .data(answer)])
                written.insert(session)
            case .snapshot(let session, let snapshot):
                try flush(in: connection)
                try store(snapshot, of: session, in: connection)
                written.insert(session)
            case .forgetKeys(let session, let keeping):
                try flush(in: connection)
                try connection.execute(
                    """
                    DELETE FROM idempotency WHERE session = $1::text AND version < (
                        SELECT version FROM idempotency WHERE session = $1::text
                        ORDER BY version DESC OFFSET $2::bigint LIMIT 1)
                    """, [.text(session), .int64(Int64(max(keeping, 1) - 1))])
                written.insert(session)
            case .delete(let session):
                try flush(in: connection)
                try delete(session, in: connection)
            }
        }
        try flush(in: connection)
        try checkFences(in: connection)
    }

    /// An answer to a key remembered earlier in the same batch goes into that key's row.
    private static func foldingAnswers(_ changes: [StorageChange]) -> [StorageChange] {
        var folded = changes
        var remembered: [String: Int] = [:]
        var dropped = IndexSet()
        for (index, change) in changes.enumerated() {
            switch change {
            case .remember(let session, let key):
                remembered[session + "\u{0}" + key.key] = index
            case .answer(let session, let key, let answer):
                guard let at = remembered[session + "\u{0}" + key],
                    case .remember(_, var stored) = folded[at]
                else { continue }
                stored.answer = answer
                folded[at] = .remember(session: session, stored)
                dropped.insert(index)
            default:
                continue
            }
        }
        return folded.enumerated().filter { !dropped.contains($0.offset) }.map(\.element)
    }

    private mutating func create(_ record: SessionRecord, in connection: PostgresConnection) throws(PostgresError) {
        let rows = try connection.execute(
            """
            INSERT INTO sessions (id, token_hash, epoch, created, format, owner, fence)
            VALUES ($1::text, $2::text, $3::text, $4::double precision, $5::integer, $6::text, 1)
            ON CONFLICT (id) DO UPDATE SET token_hash = EXCLUDED.token_hash, epoch = EXCLUDED.epoch,
                created = EXCLUDED.created, format = EXCLUDED.format
            RETURNING fence
            """,
            [
                .text(record.id), .text(record.tokenHash), .text(record.epoch),
                .double(record.created.timeIntervalSince1970), .int32(Int32(record.format)), .text(node),
            ])
        if fences[record.id] == nil { fences[record.id] = try rows.int64(0, 0) }
        written.insert(record.id)
    }

    private func store(_ snapshot: StoredSnapshot, of session: String, in connection: PostgresConnection)
        throws(PostgresError)
    {
        try connection.execute(
            """
            INSERT INTO snapshots (session, version, format, state_type, state_version, state)
            VALUES ($1::text, $2::bigint, $3::integer, $4::text, $5::integer, $6::bytea)
            ON CONFLICT (session) DO UPDATE SET version = EXCLUDED.version, format = EXCLUDED.format,
                state_type = EXCLUDED.state_type, state_version = EXCLUDED.state_version, state = EXCLUDED.state
            """,
            [
                .text(session), .version(snapshot.version), .int32(Int32(snapshot.format)), .text(snapshot.stateType),
                .int32(Int32(snapshot.stateVersion)), .data(snapshot.state),
            ])
        try connection.execute(
            "DELETE FROM log WHERE session = $1::text AND version <= $2::bigint",
            [.text(session), .version(snapshot.version)])
    }

    /// Deletes a session this node holds (or that nobody holds any more); one another node took
    /// over is left to it.
    private mutating func delete(_ session: String, in connection: PostgresConnection) throws(PostgresError) {
        let fence: PostgresValue = fences[session].map { .int64($0) } ?? .null
        let deleted = try connection.execute(
            "DELETE FROM sessions WHERE id = $1::text AND ($2::bigint IS NULL OR fence = $2::bigint)",
            [.text(session), fence])
        if deleted.affected == 0 {
            let exists = try connection.execute("SELECT 1 FROM sessions WHERE id = $1::text", [.text(session)])
            guard exists.count == 0 else {
                fences[session] = nil
                written.remove(session)
                return
            }
        }
        for table in ["snapshots", "log", "idempotency"] {
            try connection.execute("DELETE FROM \(table) WHERE session = $1::text", [.text(session)])
        }
        fences[session] = nil
        written.remove(session)
    }

    /// Writes the log rows and keys gathered so far.
    private mutating func flush(in connection: PostgresConnection) throws(PostgresError) {
        var latestCommit: [String: Int] = [:]
        for (index, row) in logRows.enumerated() { latestCommit[row.session + "\u{0}\(row.commit.version)"] = index }
        let commits = logRows.enumerated().filter {
            latestCommit[$0.element.session + "\u{0}\($0.element.commit.version)"] == $0.offset
        }
        for start in stride(from: 0, to: commits.count, by: Self.rowsPerInsert) {
            let chunk = commits[start..<min(start + Self.rowsPerInsert, commits.count)]
            let values = chunk.indices.map { index in
                let base = (index - start) * 4
                return "($\(base + 1)::text, $\(base + 2)::bigint, $\(base + 3)::integer, $\(base + 4)::bytea)"
            }
            let parameters = chunk.flatMap { row -> [PostgresValue] in
                [
                    .text(row.element.session), .version(row.element.commit.version),
                    .int32(Int32(row.element.commit.format)), .data(row.element.commit.actions),
                ]
            }
            try connection.execute(
                """
                INSERT INTO log (session, version, format, actions) VALUES \(values.joined(separator: ", "))
                ON CONFLICT (session, version) DO UPDATE SET format = EXCLUDED.format, actions = EXCLUDED.actions
                """, parameters)
        }
        logRows.removeAll()
        var latestKey: [String: Int] = [:]
        for (index, row) in keyRows.enumerated() { latestKey[row.session + "\u{0}" + row.key.key] = index }
        let keys = keyRows.enumerated().filter {
            latestKey[$0.element.session + "\u{0}" + $0.element.key.key] == $0.offset
        }
        for start in stride(from: 0, to: keys.count, by: Self.rowsPerInsert) {
            let chunk = keys[start..<min(start + Self.rowsPerInsert, keys.count)]
            let values = chunk.indices.map { index in
                let base = (index - start) * 5
                return
                    "($\(base + 1)::text, $\(base + 2)::text, $\(base + 3)::bytea, $\(base + 4)::bigint, $\(base + 5)::bytea)"
            }
            let parameters = chunk.flatMap { row -> [PostgresValue] in
                let key = row.element.key
                return [
                    .text(row.element.session), .text(key.key), .bytes(key.digest), .version(key.version),
                    key.answer.map(PostgresValue.data) ?? .null,
                ]
            }
            try connection.execute(
                """
                INSERT INTO idempotency (session, key, digest, version, answer) VALUES \(values.joined(separator: ", "))
                ON CONFLICT (session, key) DO UPDATE SET digest = EXCLUDED.digest, version = EXCLUDED.version,
                    answer = EXCLUDED.answer
                """, parameters)
        }
        keyRows.removeAll()
    }

    /// Checks, holding their lease rows until COMMIT, that this node still holds every session written.
    private func checkFences(in connection: PostgresConnection) throws(PostgresError) {
        guard !written.isEmpty else { return }
        let sessions = written.sorted()
        let unheld = sessions.filter { fences[$0] == nil }
        guard unheld.isEmpty else {
            throw PostgresError(message: "this node holds no lease on session \(unheld[0])", fenced: true)
        }
        let rows = try connection.execute(
            """
            SELECT s.id FROM sessions s
            JOIN unnest($1::text::text[], $2::text::bigint[]) AS f(id, fence) ON s.id = f.id AND s.fence = f.fence
            FOR SHARE OF s
            """,
            [
                .text("{" + sessions.joined(separator: ",") + "}"),
                .text("{" + sessions.map { "\(fences[$0] ?? 0)" }.joined(separator: ",") + "}"),
            ])
        guard rows.count == sessions.count else {
            let held = Set(try (0..<rows.count).map { row throws(PostgresError) in try rows.text(row, 0) })
            let lost = sessions.filter { !held.contains($0) }
            throw PostgresError(
                message:
                    "another node took over session \(lost[0])\(lost.count > 1 ? " and \(lost.count - 1) more" : "")",
                fenced: true)
        }
    }
}
