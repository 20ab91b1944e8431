import ArgumentParser
import ExampleApp
import Logging
import ReMVVM
import ReMVVMPersistence
import ReMVVMPostgres
import ReMVVMSQLite
import ReMVVMServer

extension ServeCommand {
    /// How sessions are kept.
    enum Durability: String, ExpressibleByArgument, CaseIterable {
        /// In an SQLite file in the data directory; a dispatch is answered once it is on disk.
        case full
        /// In memory only (tests and benchmarks).
        case off
    }

    /// The server for `definition`, with durable sessions unless durability is off.
    func makeServer(
        _ definition: StoreDefinition<AppState>,
        version: ExampleApp.Version,
        configuration: ServerConfiguration,
        environment: Environment,
        logger: Logger,
        authentication: Authentication? = nil,
        routes: [AppRoute] = []
    ) throws -> StoreServer {
        guard try durabilityMode(environment) == .full else {
            logger.notice("durability is off: sessions live in memory only and end with the process")
            return StoreServer(
                definition, configuration: configuration, logger: logger, authentication: authentication, routes: routes
            )
        }
        var durable = Self.appDurability(version)
        durable.snapshotEvery =
            try snapshotEvery ?? environment.number("REMVVM_SNAPSHOT_EVERY") ?? durable.snapshotEvery
        guard durable.snapshotEvery >= 1 else { throw ValidationError("--snapshot-every must be at least 1") }
        durable.dropUndecodableSessions =
            try dropUndecodableSessions || environment.isOn("REMVVM_DROP_UNDECODABLE_SESSIONS")
        durable.writesNewestFormat = try writeNewestFormat || environment.isOn("REMVVM_WRITE_NEWEST_FORMAT")
        if let url = databaseURL ?? environment["REMVVM_DATABASE_URL"] {
            let node = nodeName ?? environment["REMVVM_NODE_NAME"] ?? "\(configuration.host):\(configuration.port)"
            var timeouts = PostgresTimeouts()
            if let milliseconds = try databaseTimeout ?? environment.number("REMVVM_DATABASE_TIMEOUT") as Int? {
                guard milliseconds >= 1 else { throw ValidationError("--database-timeout must be at least 1 ms") }
                timeouts = PostgresTimeouts(call: .milliseconds(milliseconds))
            }
            let storage: PostgresSessionStorage
            do {
                storage = try PostgresSessionStorage(
                    url: url, node: node, timeouts: timeouts, loaders: configuration.sessionLoaders, logger: logger)
            } catch {
                throw ValidationError("cannot open the session store in PostgreSQL: \(error)")
            }
            logger.info(
                "durable sessions in PostgreSQL",
                metadata: [
                    "node.name": "\(node)", "snapshot.every": "\(durable.snapshotEvery)",
                    "database.timeout_ms": "\(PostgresTimeouts.milliseconds(timeouts.call))",
                ])
            return StoreServer(
                definition, configuration: configuration, storage: storage, durability: durable, logger: logger,
                authentication: authentication, routes: routes)
        }
        let directory = dataDir ?? environment["REMVVM_DATA_DIR"] ?? "data"
        let storage: SQLiteSessionStorage
        do {
            storage = try SQLiteSessionStorage(directory: directory, synchronous: .full, logger: logger)
        } catch {
            throw ValidationError("cannot open the session store in '\(directory)': \(error)")
        }
        logger.info(
            "durable sessions in \(storage.path)",
            metadata: [
                "snapshot.every": "\(durable.snapshotEvery)", "drop.undecodable": "\(durable.dropUndecodableSessions)",
            ])
        return StoreServer(
            definition, configuration: configuration, storage: storage, durability: durable, logger: logger,
            authentication: authentication, routes: routes)
    }

    /// How the example app's state is named and versioned in storage at `version`: what the server writes and what
    /// `verify-upgrade` reads with.
    static func appDurability(_ version: ExampleApp.Version) -> DurabilityConfiguration {
        var durable = DurabilityConfiguration()
        durable.stateVersion = version.stateVersion
        durable.migrateState = { json, from in try ExampleApp.migrateState(json, from: from) }
        durable.downgradeState = { json, version in try ExampleApp.downgradeState(json, to: version) }
        return durable
    }

    /// The example app's build: `--app-version`, else `REMVVM_APP_VERSION`, else 1.
    static func appVersion(_ option: Int?, _ environment: Environment) throws -> ExampleApp.Version {
        guard let number = try option ?? environment.number("REMVVM_APP_VERSION") as Int? else { return .v1 }
        guard let version = ExampleApp.Version(rawValue: number) else {
            throw ValidationError("--app-version must be 1 or 2, not \(number)")
        }
        return version
    }

    private func durabilityMode(_ environment: Environment) throws -> Durability {
        if let durability { return durability }
        guard let text = environment["REMVVM_DURABILITY"] else { return .full }
        guard let mode = Durability(rawValue: text) else {
            throw ValidationError("REMVVM_DURABILITY must be full or off, not '\(text)'")
        }
        return mode
    }
}

extension Environment {
    /// A yes/no variable: 1, true or yes; 0, false, no or unset. Anything else is an error.
    func isOn(_ name: String) throws -> Bool {
        guard let text = self[name]?.lowercased() else { return false }
        switch text {
        case "1", "true", "yes": return true
        case "0", "false", "no": return false
        default: throw ValidationError("\(name) must be 1 or 0, not '\(text)'")
        }
    }
}
