import ArgumentParser

/// `remvvm-server [options]` serves the example app (``ServeCommand``); `remvvm-server verify-upgrade [options]`
/// checks this build against the stored sessions before it is deployed (``VerifyUpgradeCommand``).
///
/// Not one root command with two subcommands: `remvvm-server --help` keeps listing the server's options, which the
/// scripts read to learn what a build supports, and each command has its own options (both have `--data-dir`,
/// which a parent command's option of the same name would take).
@main
enum RemvvmServer {
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == VerifyUpgradeCommand.name {
            arguments.removeFirst()
            VerifyUpgradeCommand.main(arguments)
        } else {
            await ServeCommand.main(arguments)
        }
    }
}
