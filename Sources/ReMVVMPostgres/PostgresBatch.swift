import Foundation
import ReMVVMPersistence
import Synchronization

/// One group-commit batch as the statements of one pipelined transaction: the log rows and the
/// idempotency keys of every session go in multi-row INSERTs, and the last statement checks the
/// fences of every session written (``PostgresSessionStorage`` sends them with one Sync: one round
/// trip and one WAL flush per batch).
struct PostgresBatch {
    let node: String
    /// The fences this node holds.
    private(set) var fences: [String: Int64]
    /// The statements, in order.
    private(set) var statements: [(sql: String, parameters: [PostgresValue])] = []
    /// The statements that create a session, whose results carry its fence.
    private var creates: [(statement: Int, session: String)] = []
    private var deleted: Set<String> = []
    private var logRows: [(session: String, commit: StoredCommit)] = []
    private var keyRows: [(session: String, key: StoredIdempotencyKey)] = []
    /// Sessions whose identity, log, snapshot or keys this batch writes: their fences are checked.
    private var written: Set<String> = []
    /// The latest expiry touched per session, written in one statement after everything else.
    private var touches: [String: Date] = [:]
    /// Topic messages published by this batch's commits (the outbox), and the statements that append them.
    private var publications: [StoredPublication] = []
    private var appends: [(statement: Int, publication: StoredPublication)] = []

    /// Rows per multi-row INSERT (PostgreSQL takes at most 65,535 parameters per statement).
    private static let rowsPerInsert = 1_000

    /// The statements for `changes`, applied in order, and the fence check last.
    init(node: String, fences: [String: Int64], changes: [StorageChange]) {
        self.node = node
        self.fences = fences
        for change in Self.foldingAnswers(changes) { plan(change) }
        flush()
        addTouches()
        appendTopicMessages()
        checkFences()
    }

    /// Updates the fences held once the transaction committed with these `results`: deleted sessions'
    /// go, created sessions' come.
    func settle(_ held: borrowing Mutex<[String: Int64]>, after results: [PostgresRows]) throws(PostgresError) {
        var created: [(String, Int64)] = []
        for (statement, session) in creates where fences[session] == nil {
            created.append((session, try results[statement].int64(0, 0)))
        }
        for (statement, publication) in appends { publication.position = try results[statement].version(0, 0) }
        held.withLock { held in
            for id in deleted { held[id] = nil }
            for (session, fence) in created where held[session] == nil { held[session] = fence }
        }
    }

    private mutating func plan(_ change: StorageChange) {
        switch change {
        case .create(let record):
            add(
                """
                INSERT INTO sessions (id, token_hash, epoch, created, format, owner, fence, expires_at, identity)
                VALUES ($1::text, $2::text, $3::text, $4::double precision, $5::integer, $6::text, 1,
                    $7::double precision, $8::text)
                ON CONFLICT (id) DO UPDATE SET token_hash = EXCLUDED.token_hash, epoch = EXCLUDED.epoch,
                    created = EXCLUDED.created, format = EXCLUDED.format, identity = EXCLUDED.identity,
                    expires_at = greatest(sessions.expires_at, EXCLUDED.expires_at)
                RETURNING fence
                """,
                [
                    .text(record.id), .text(record.tokenHash), .text(record.epoch),
                    .double(record.created.timeIntervalSince1970), .int32(Int32(record.format)), .text(node),
                    .double(record.expires.timeIntervalSince1970), record.identityJSON.map(PostgresValue.text) ?? .null,
                ])
            creates.append((statements.count - 1, record.id))
            deleted.remove(record.id)
            written.insert(record.id)
        case .append(let session, let commits):
            logRows += commits.map { (session, $0) }
            written.insert(session)
        case .remember(let session, let key):
            keyRows.append((session, key))
            written.insert(session)
        case .publish(let session, let publication):
            publications.append(publication)
            if !session.isEmpty { written.insert(session) }
        case .answer(let session, let key, let answer):
            flush()
            add(
                "UPDATE idempotency SET answer = $3::bytea WHERE session = $1::text AND key = $2::text",
                [.text(session), .text(key), .data(answer)])
            written.insert(session)
        case .snapshot(let session, let snapshot):
            flush()
            // The snapshot it replaces stays as the previous one, with the log since it: a later build replays
            // that log from it and must reach this one's digest (`verify-upgrade`).
            add(
                """
                INSERT INTO previous_snapshots (session, version, format, state_type, state_version, state, digest)
                SELECT session, version, format, state_type, state_version, state, digest FROM snapshots
                WHERE session = $1::text AND version < $2::bigint
                ON CONFLICT (session) DO UPDATE SET version = EXCLUDED.version, format = EXCLUDED.format,
                    state_type = EXCLUDED.state_type, state_version = EXCLUDED.state_version, state = EXCLUDED.state,
                    digest = EXCLUDED.digest
                """, [.text(session), .version(snapshot.version)])
            add(
                """
                INSERT INTO snapshots (session, version, format, state_type, state_version, state, digest)
                VALUES ($1::text, $2::bigint, $3::integer, $4::text, $5::integer, $6::bytea, $7::bytea)
                ON CONFLICT (session) DO UPDATE SET version = EXCLUDED.version, format = EXCLUDED.format,
                    state_type = EXCLUDED.state_type, state_version = EXCLUDED.state_version, state = EXCLUDED.state,
                    digest = EXCLUDED.digest
                """,
                [
                    .text(session), .version(snapshot.version), .int32(Int32(snapshot.format)),
                    .text(snapshot.stateType), .int32(Int32(snapshot.stateVersion)), .data(snapshot.state),
                    snapshot.digest.map(PostgresValue.bytes) ?? .null,
                ])
            add(
                """
                DELETE FROM log WHERE session = $1::text AND version <= coalesce(
                    (SELECT version FROM previous_snapshots WHERE session = $1::text), 0)
                """, [.text(session)])
            written.insert(session)
        case .forgetKeys(let session, let keeping):
            flush()
            add(
                """
                DELETE FROM idempotency WHERE session = $1::text AND version < (
                    SELECT version FROM idempotency WHERE session = $1::text
                    ORDER BY version DESC OFFSET $2::bigint LIMIT 1)
                """, [.text(session), .int64(Int64(max(keeping, 1) - 1))])
            written.insert(session)
        case .touch(let session, let expires):
            touches[session] = max(touches[session] ?? expires, expires)
        case .delete(let session):
            flush()
            // A session another node took over (its fence moved on, or this node forgot it) is left to it.
            guard fences[session] != nil || creates.contains(where: { $0.session == session }) else { return }
            let fence: PostgresValue = fences[session].map { .int64($0) } ?? .null
            add(
                "DELETE FROM sessions WHERE id = $1::text AND ($2::bigint IS NULL OR fence = $2::bigint)",
                [.text(session), fence])
            for table in ["snapshots", "previous_snapshots", "log", "idempotency"] {
                add(
                    """
                    DELETE FROM \(table) WHERE session = $1::text
                        AND NOT EXISTS (SELECT 1 FROM sessions WHERE id = $1::text)
                    """, [.text(session)])
            }
            deleted.insert(session)
            written.remove(session)
        }
    }

    /// Appends the topic messages in the transaction: each takes its topic's counter row (held until COMMIT, so
    /// the database orders every node's messages) and its `pg_notify` goes out at COMMIT. Topics in name order,
    /// so that two nodes' batches lock counter rows in the same order; one topic's messages keep theirs.
    private mutating func appendTopicMessages() {
        let ordered = publications.enumerated().sorted { ($0.element.topic, $0.offset) < ($1.element.topic, $1.offset) }
        for (_, publication) in ordered {
            add(
                PostgresSessionStorage.appendStatement,
                [.text(publication.topic), .data(publication.action), .int64(Int64(max(publication.retaining, 1)))])
            appends.append((statements.count - 1, publication))
        }
    }

    private mutating func add(_ sql: String, _ parameters: [PostgresValue]) {
        statements.append((sql, parameters))
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
                guard let at = remembered[session + "\u{0}" + key], case .remember(_, var stored) = folded[at] else {
                    continue
                }
                stored.answer = answer
                folded[at] = .remember(session: session, stored)
                dropped.insert(index)
            default:
                continue
            }
        }
        return folded.enumerated().filter { !dropped.contains($0.offset) }.map(\.element)
    }

    /// Adds the INSERTs of the log rows and keys gathered so far (the last of equal keys wins).
    private mutating func flush() {
        let commits = Self.lastOfEach(logRows) { "\($0.session)\u{0}\($0.commit.version)" }
        for chunk in Self.chunks(commits) {
            let values = chunk.indices.map { row in
                let base = row * 5
                return
                    "($\(base + 1)::text, $\(base + 2)::bigint, $\(base + 3)::integer, $\(base + 4)::bytea, $\(base + 5)::text)"
            }
            let parameters = chunk.flatMap { row -> [PostgresValue] in
                [
                    .text(row.session), .version(row.commit.version), .int32(Int32(row.commit.format)),
                    .data(row.commit.actions), row.commit.versionsJSON.map(PostgresValue.text) ?? .null,
                ]
            }
            add(
                """
                INSERT INTO log (session, version, format, actions, versions) VALUES \(values.joined(separator: ", "))
                ON CONFLICT (session, version) DO UPDATE SET format = EXCLUDED.format, actions = EXCLUDED.actions,
                    versions = EXCLUDED.versions
                """, parameters)
        }
        logRows.removeAll()
        let keys = Self.lastOfEach(keyRows) { "\($0.session)\u{0}\($0.key.key)" }
        for chunk in Self.chunks(keys) {
            let values = chunk.indices.map { row in
                let base = row * 5
                return
                    "($\(base + 1)::text, $\(base + 2)::text, $\(base + 3)::bytea, $\(base + 4)::bigint, $\(base + 5)::bytea)"
            }
            let parameters = chunk.flatMap { row -> [PostgresValue] in
                [
                    .text(row.session), .text(row.key.key), .bytes(row.key.digest), .version(row.key.version),
                    row.key.answer.map(PostgresValue.data) ?? .null,
                ]
            }
            add(
                """
                INSERT INTO idempotency (session, key, digest, version, answer)
                VALUES \(values.joined(separator: ", "))
                ON CONFLICT (session, key) DO UPDATE SET digest = EXCLUDED.digest, version = EXCLUDED.version,
                    answer = EXCLUDED.answer
                """, parameters)
        }
        keyRows.removeAll()
    }

    /// Adds the expiry touches: each moves the session's expiry later, only while this node holds it (its fence;
    /// none for a session this batch creates). Not fence-checked: a touch of a lost session changes nothing.
    private mutating func addTouches() {
        let sessions = touches.keys.sorted().filter { id in
            !deleted.contains(id) && (fences[id] != nil || creates.contains { $0.session == id })
        }
        guard !sessions.isEmpty else { return }
        let expires = sessions.map { id in String(touches[id]?.timeIntervalSince1970 ?? 0) }
        let expected = sessions.map { id in fences[id].map(String.init) ?? "NULL" }
        add(
            """
            UPDATE sessions s SET expires_at = greatest(s.expires_at, t.expires)
            FROM unnest($1::text::text[], $2::text::double precision[], $3::text::bigint[]) AS t (id, expires, fence)
            WHERE s.id = t.id AND (t.fence IS NULL OR s.fence = t.fence)
            """,
            [
                .text("{" + sessions.joined(separator: ",") + "}"), .text("{" + expires.joined(separator: ",") + "}"),
                .text("{" + expected.joined(separator: ",") + "}"),
            ])
    }

    /// Adds the check that this node still holds every session written (NULL: one this batch creates).
    private mutating func checkFences() {
        guard !written.isEmpty else { return }
        let sessions = written.sorted()
        let expected = sessions.map { id in fences[id].map(String.init) ?? "NULL" }
        add(
            "SELECT remvvm_check_fences($1::text::text[], $2::text::bigint[])",
            [.text("{" + sessions.joined(separator: ",") + "}"), .text("{" + expected.joined(separator: ",") + "}")])
    }

    /// The rows, keeping only the last of those with the same key, in their order.
    private static func lastOfEach<Row>(_ rows: [Row], key: (Row) -> String) -> [Row] {
        var last: [String: Int] = [:]
        for (index, row) in rows.enumerated() { last[key(row)] = index }
        return rows.enumerated().filter { last[key($0.element)] == $0.offset }.map(\.element)
    }

    /// The rows in slices of at most ``rowsPerInsert``, each indexed from 0.
    private static func chunks<Row>(_ rows: [Row]) -> [[Row]] {
        stride(from: 0, to: rows.count, by: rowsPerInsert).map { Array(rows[$0..<min($0 + rowsPerInsert, rows.count)]) }
    }
}
