import Foundation
import ReMVVMPersistence

extension PostgresSessionStorage {
    /// The schema version this server writes, in the `schema_version` table.
    static let schemaVersion = 7

    /// Any fixed number: the lock that keeps two nodes starting at once from migrating together.
    private static let migrationLock: Int64 = 0x7265_6D76_766D  // "remvvm"

    /// Creates the tables, or brings older ones up to date, in one transaction; refuses a newer schema.
    ///
    /// Version 1: `sessions` (identity, with the hashed token and the `owner`/`fence` lease that
    /// every append checks), `snapshots`, `log` (primary key session and version), `idempotency`, and
    /// the fence check `remvvm_check_fences`.
    ///
    /// Version 2: `remvvm_check_fences` names every session the batch lost in its DETAIL, so the writer
    /// drops those and writes the others in the same round.
    ///
    /// Version 3: topics shared by the nodes: `topic_counters` (each topic's last sequence, the row every
    /// append updates, so appends to one topic from any node take their turn) and `topic_messages`
    /// (the retained messages).
    ///
    /// Version 4: each session's expiry, `sessions.expires_at` (seconds since 1970, as `created`), indexed for
    /// the tidy; the sessions already stored get the migration's time plus ``SessionRecord/defaultLifetime``.
    ///
    /// Version 5: `topic_counters.touched`, when a topic was last published to or kept alive by a node with
    /// subscribers: a topic untouched for its retention is deleted (``forget(_:retention:)``).
    ///
    /// Version 6: each session's identity, `sessions.identity` (JSON text, NULL for an anonymous session, as every
    /// session stored before); added only if missing.
    ///
    /// Version 7: what a later build's replay is checked against (`verify-upgrade`): `snapshots.digest`, the
    /// snapshot before the latest (`previous_snapshots`, the log kept since it) and `log.versions` (the action
    /// payload versions of each entry). A node of an older build, still running, replaces a snapshot without a
    /// digest: a trigger clears the replaced one's, so that no digest ever stands for another state. And
    /// `node_versions`: the state and action versions each live node reads (``announce(stateVersion:actionVersions:)``).
    static func migrate(_ connection: PostgresConnection) throws(PostgresError) {
        try connection.execute("BEGIN")
        do throws(PostgresError) {
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int64(migrationLock)])
            try connection.execute("CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)")
            let current = try connection.execute("SELECT max(version) FROM schema_version")
            let version = current.optionalBytes(0, 0) == nil ? 0 : Int(try current.int32(0, 0))
            guard version <= schemaVersion else {
                throw PostgresError(
                    message:
                        "the database has schema version \(version), newer than this server reads (\(schemaVersion))",
                    incompatible: true)
            }
            if version < 1 {
                for statement in firstSchema { try connection.execute(statement) }
            }
            if version < 2 {
                for statement in secondSchema { try connection.execute(statement) }
            }
            if version < 3 {
                for statement in thirdSchema { try connection.execute(statement) }
            }
            if version < 4 {
                for statement in fourthSchema { try connection.execute(statement) }
                try connection.execute(
                    "UPDATE sessions SET expires_at = $1::double precision WHERE expires_at IS NULL",
                    [.double(Date().timeIntervalSince1970 + SessionRecord.defaultLifetime)])
                try connection.execute("ALTER TABLE sessions ALTER COLUMN expires_at SET NOT NULL")
            }
            if version < 5 {
                for statement in topicRetentionSchema { try connection.execute(statement) }
            }
            if version < 6 {
                try connection.execute("ALTER TABLE sessions ADD COLUMN IF NOT EXISTS identity text")
            }
            if version < 7 {
                for statement in replayCheckSchema { try connection.execute(statement) }
            }
            if version < schemaVersion {
                try connection.execute("DELETE FROM schema_version")
                try connection.execute(
                    "INSERT INTO schema_version (version) VALUES ($1)", [.int32(Int32(schemaVersion))])
            }
            try connection.execute("COMMIT")
        } catch {
            if connection.isOpen { _ = try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    private static let firstSchema = [
        """
        CREATE TABLE sessions (
            id text PRIMARY KEY,
            token_hash text NOT NULL,
            epoch text NOT NULL,
            created double precision NOT NULL,
            format integer NOT NULL,
            owner text,
            fence bigint NOT NULL DEFAULT 1
        )
        """,
        """
        CREATE TABLE snapshots (
            session text PRIMARY KEY,
            version bigint NOT NULL,
            format integer NOT NULL,
            state_type text NOT NULL,
            state_version integer NOT NULL,
            state bytea NOT NULL
        )
        """,
        """
        CREATE TABLE log (
            session text NOT NULL,
            version bigint NOT NULL,
            format integer NOT NULL,
            actions bytea NOT NULL,
            PRIMARY KEY (session, version)
        )
        """,
        """
        CREATE TABLE idempotency (
            session text NOT NULL,
            key text NOT NULL,
            digest bytea NOT NULL,
            version bigint NOT NULL,
            answer bytea,
            PRIMARY KEY (session, key)
        )
        """,
        "CREATE INDEX idempotency_by_version ON idempotency (session, version)",
        // Every batch ends with this check, so that a pipelined transaction is refused by the server itself:
        // it holds the lease rows until COMMIT (a takeover waits for it) and raises RV001 when a fence moved.
        // A NULL fence stands for a session the batch creates.
        """
        CREATE FUNCTION remvvm_check_fences(ids text[], fences bigint[]) RETURNS void LANGUAGE plpgsql AS $$
        DECLARE
            lost text;
        BEGIN
            PERFORM 1 FROM sessions WHERE id = ANY (ids) FOR SHARE;
            SELECT f.id INTO lost FROM unnest(ids, fences) AS f (id, fence)
                LEFT JOIN sessions s ON s.id = f.id
                WHERE s.id IS NULL OR (f.fence IS NOT NULL AND s.fence <> f.fence)
                LIMIT 1;
            IF lost IS NOT NULL THEN
                RAISE EXCEPTION 'another node took over session %', lost USING ERRCODE = 'RV001';
            END IF;
        END
        $$
        """,
    ]

    /// The fence check again, raising with the list of every lost session (comma-separated, in its DETAIL).
    private static let secondSchema = [
        """
        CREATE OR REPLACE FUNCTION remvvm_check_fences(ids text[], fences bigint[]) RETURNS void
        LANGUAGE plpgsql AS $$
        DECLARE
            lost text[];
        BEGIN
            PERFORM 1 FROM sessions WHERE id = ANY (ids) FOR SHARE;
            SELECT array_agg(f.id ORDER BY f.id) INTO lost FROM unnest(ids, fences) AS f (id, fence)
                LEFT JOIN sessions s ON s.id = f.id
                WHERE s.id IS NULL OR (f.fence IS NOT NULL AND s.fence <> f.fence);
            IF lost IS NOT NULL THEN
                RAISE EXCEPTION 'another node took over % session(s)', cardinality(lost)
                    USING ERRCODE = 'RV001', DETAIL = array_to_string(lost, ',');
            END IF;
        END
        $$
        """
    ]

    /// Topics: each topic's counter, and its retained messages.
    private static let thirdSchema = [
        "CREATE TABLE IF NOT EXISTS topic_counters (topic text PRIMARY KEY, last bigint NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS topic_messages (
            topic text NOT NULL,
            sequence bigint NOT NULL,
            action bytea NOT NULL,
            PRIMARY KEY (topic, sequence)
        )
        """,
    ]

    /// Expiry: the column, and the index the tidy's oldest-first scan reads.
    private static let fourthSchema = [
        "ALTER TABLE sessions ADD COLUMN IF NOT EXISTS expires_at double precision",
        "CREATE INDEX IF NOT EXISTS sessions_by_expiry ON sessions (expires_at)",
    ]

    /// Version 5: when each topic was last used, so that idle topics are deleted.
    private static let topicRetentionSchema = [
        "ALTER TABLE topic_counters ADD COLUMN IF NOT EXISTS touched timestamptz NOT NULL DEFAULT now()",
        "CREATE INDEX IF NOT EXISTS topic_counters_touched ON topic_counters (touched)",
    ]

    /// Version 7: digests, the previous snapshot and the action versions.
    private static let replayCheckSchema = [
        "ALTER TABLE snapshots ADD COLUMN IF NOT EXISTS digest bytea",
        "ALTER TABLE log ADD COLUMN IF NOT EXISTS versions text",
        """
        CREATE TABLE IF NOT EXISTS previous_snapshots (
            session text PRIMARY KEY,
            version bigint NOT NULL,
            format integer NOT NULL,
            state_type text NOT NULL,
            state_version integer NOT NULL,
            state bytea NOT NULL,
            digest bytea
        )
        """,
        """
        CREATE OR REPLACE FUNCTION remvvm_clear_stale_digest() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.version <> OLD.version AND NEW.digest IS NOT DISTINCT FROM OLD.digest THEN
                NEW.digest := NULL;
            END IF;
            RETURN NEW;
        END
        $$
        """,
        "DROP TRIGGER IF EXISTS snapshots_clear_stale_digest ON snapshots",
        """
        CREATE TABLE IF NOT EXISTS node_versions (
            node text PRIMARY KEY,
            state_version integer NOT NULL,
            action_versions text NOT NULL,
            seen timestamptz NOT NULL
        )
        """,
        """
        CREATE TRIGGER snapshots_clear_stale_digest BEFORE UPDATE ON snapshots
            FOR EACH ROW EXECUTE FUNCTION remvvm_clear_stale_digest()
        """,
    ]
}
