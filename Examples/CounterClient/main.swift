import CounterShared
import Foundation
import ReMVVMClient

// counter-client URL [COMMAND...]: sends the counter's actions to a server and prints its view.
//   increase | set N   send an action and print its outcome
//   show               print the counter as the server has it
//   follow             print the counter each time it changes, until interrupted
//   bench N            N times: set the counter, and time until a second client following it sees the new value
//                      (by event stream, or long-poll with COUNTER_CLIENT_FEED=long-poll)
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
    case "bench":
        guard let count = commands.popFirst().flatMap({ Int($0) }), count > 0 else {
            print("bench needs a count")
            exit(2)
        }
        try await bench(count)
    default:
        print("unknown command '\(command)'")
        exit(2)
    }
}
await store.close()

/// Sets the counter `count` times and measures, for each, the time from `send` to a second store's new view.
func bench(_ count: Int) async throws {
    let feed: RemoteStore.ChangeFeed =
        ProcessInfo.processInfo.environment["COUNTER_CLIENT_FEED"] == "long-poll" ? .longPoll : .eventStream
    let follower = try RemoteStore(
        url: url, sessionStore: MemorySessionStore(await store.session), configuration: .init(changeFeed: feed))
    try await follower.connect()
    var views = await follower.follow("counter", as: CounterView.self).makeAsyncIterator()
    let start = try await store.view("counter", as: CounterView.self).count
    while try await views.next()?.count != start {}
    var latencies: [Duration] = []
    let clock = ContinuousClock()
    let cpuBefore = processCPUTime()
    for step in 1...count {
        let sent = clock.now
        _ = try await store.send(SetCount(count: start + step))
        while try await views.next()?.count != start + step {}
        latencies.append(clock.now - sent)
    }
    let cpu = processCPUTime() - cpuBefore
    latencies.sort()
    func percentile(_ share: Double) -> Duration {
        latencies[min(latencies.count - 1, Int(Double(latencies.count) * share))]
    }
    print("send to follower's view, \(count) changes: p50 \(percentile(0.5)), p99 \(percentile(0.99))")
    print("client CPU per change (sender and follower, one process): \(cpu / count)")
    await follower.close()
}

/// The CPU time this process used so far, user and system.
func processCPUTime() -> Duration {
    var usage = rusage()
    #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #else
        getrusage(RUSAGE_SELF, &usage)
    #endif
    func duration(_ time: timeval) -> Duration { .seconds(time.tv_sec) + .microseconds(time.tv_usec) }
    return duration(usage.ru_utime) + duration(usage.ru_stime)
}
