import ArgumentParser

/// `remvvm-server`: serves the example app (`serve`, the default, so `remvvm-server --port 9000` serves), or checks
/// a build against the stored sessions before it is deployed (`verify-upgrade`). Subcommands of one root, so that
/// each has its own options (both have a `--data-dir`).
@main
struct RemvvmServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remvvm-server",
        abstract: "The ReMVVM example app's server.",
        subcommands: [ServeCommand.self, VerifyUpgradeCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
