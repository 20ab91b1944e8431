import ArgumentParser
import ExampleApp
import Foundation
import ReMVVMPersistence
import ReMVVMPostgres
import ReMVVMSQLite

/// `remvvm-server verify-upgrade`: rebuilds the stored sessions with this build before it is deployed, and fails
/// when any would be read differently (divergent) or not at all (undecodable). It only reads.
struct VerifyUpgradeCommand: ParsableCommand {
    /// The first argument that selects this command.
    static let name = "verify-upgrade"

    static let configuration = CommandConfiguration(
        commandName: "remvvm-server \(name)",
        abstract: "Replay the stored sessions with this build; exit 1 if any diverges or does not decode.",
        discussion: """
            Migrates each session's earlier snapshot, replays its log through this build's reducers and compares \
            the state reached with the digest the running build recorded at its latest snapshot. Reads only: run \
            it against the production database (or a copy) before rolling the new build out.
            """)

    @Option(
        name: .customLong("data-dir"),
        help: "Folder holding sessions.sqlite; default data unless --database-url is set (REMVVM_DATA_DIR).")
    var dataDir: String?
    @Option(name: .customLong("sqlite-file"), help: "An SQLite session file to read instead of --data-dir's.")
    var sqliteFile: String?
    @Option(
        name: .customLong("database-url"),
        help: "PostgreSQL (libpq URI) to read the sessions from (REMVVM_DATABASE_URL).")
    var databaseURL: String?
    @Option(
        name: .customLong("app-version"),
        help: "The build of the example app to check, 1 or 2; default 1 (REMVVM_APP_VERSION).")
    var appVersion: Int?
    @Option(help: "Rebuild only this many sessions, spread evenly over the stored ones.") var sample: Int?
    @Flag(help: "Print the report as JSON.") var json = false

    func run() throws {
        let environment = Environment(ProcessInfo.processInfo.environment)
        if let sample, sample < 1 { throw ValidationError("--sample must be at least 1") }
        let source: any SessionHistorySource
        do {
            if let file = sqliteFile {
                source = try SQLiteSessionHistory(path: file)
            } else if let url = databaseURL ?? (dataDir == nil ? environment["REMVVM_DATABASE_URL"] : nil) {
                source = try PostgresSessionHistory(url: url)
            } else {
                let directory = dataDir ?? environment["REMVVM_DATA_DIR"] ?? "data"
                source = try SQLiteSessionHistory(
                    path: (directory as NSString).appendingPathComponent(SQLiteSessionStorage.fileName))
            }
        } catch {
            throw ValidationError("cannot read the stored sessions: \(error)")
        }
        defer { source.close() }
        let version = try ServeCommand.appVersion(appVersion, environment)
        let gate = UpgradeGate(
            ExampleApp.definition(version: version), durability: ServeCommand.appDurability(version))
        let report: UpgradeReport
        do {
            report = try gate.run(source, sample: sample)
        } catch {
            throw ValidationError("reading the stored sessions failed: \(error)")
        }
        print(json ? report.json : report.text)
        if !report.passed { throw ExitCode(1) }
    }
}
