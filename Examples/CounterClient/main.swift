import CounterShared
import Foundation
import ReMVVMClient

// counter-client URL [COMMAND...]: sends the counter's actions to a server and prints its view.
//   increase | set N   send an action and print its outcome
//   show               print the counter as the server has it
//   follow             print the counter each time it changes, until interrupted
// The session and the actions not yet delivered are kept in COUNTER_CLIENT_DIR (default: the current folder),
// so a second run resumes the same counter, and actions sent while the server is down are delivered later.
let arguments = Array(CommandLine.arguments.dropFirst())
guard let address = arguments.first, let url = URL(string: address) else {
    print("usage: counter-client URL [increase | set N | show | follow]...")
    exit(2)
}
let folder = URL(fileURLWithPath: ProcessInfo.processInfo.environment["COUNTER_CLIENT_DIR"] ?? ".")
let store = try RemoteStore(
    url: url, sessionStore: FileSessionStore(url: folder.appendingPathComponent("counter-session.json")),
    configuration: .init(outboxURL: folder.appendingPathComponent("counter-outbox.json"), followsChanges: false))
try await store.connect()

var commands = arguments.dropFirst()[...]
while let command = commands.popFirst() {
    switch command {
    case "increase":
        print(try await store.send(Increase()))
    case "set":
        guard let count = commands.popFirst().flatMap({ Int($0) }) else {
            print("set needs a number")
            exit(2)
        }
        print(try await store.send(SetCount(count: count)))
    case "show":
        print("count: \(try await store.view("counter", as: CounterView.self).count)")
    case "follow":
        let following = try RemoteStore(url: url, sessionStore: MemorySessionStore(await store.session))
        try await following.connect()
        for try await view in await following.follow("counter", as: CounterView.self) {
            print("count: \(view.count)")
        }
    default:
        print("unknown command '\(command)'")
        exit(2)
    }
}
await store.close()
