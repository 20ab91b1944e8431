import CounterShared
import Foundation
import ReMVVMClient

// counter-client URL [COMMAND...]: sends the counter's actions to a server and prints its view.
//   increase | set N   send an action and print its outcome
//   show               print the counter as the server has it
//   follow             print the counter each time it changes, until interrupted
//   bench N            N times: set the counter, and time until a second client following it sees the new value
// COUNTER_CLIENT_FEED=event-stream (the default) or long-poll chooses how `follow` and `bench` follow.
// The session and the actions not yet delivered are kept in COUNTER_CLIENT_DIR (default: the current folder),
// so a second run resumes the same counter, and actions sent while the server is down are delivered later.
let arguments = Array(CommandLine.arguments.dropFirst())
guard let address = arguments.first, let url = URL(string: address) else {
    say("usage: counter-client URL [increase | set N | show | follow]...")
    exit(2)
}
let folder = URL(fileURLWithPath: ProcessInfo.processInfo.environment["COUNTER_CLIENT_DIR"] ?? ".")
let store = try RemoteStore(
    url: url, sessionStore: FileSessionStore(url: folder.appendingPathComponent("counter-session.json")),
    configuration: .init(outboxURL: folder.appendingPathComponent("counter-outbox.json"), followsChanges: false))
try await store.connect()

// How `follow` and `bench` follow: COUNTER_CLIENT_FEED=event-stream or long-poll (default: the client's).
let feed: RemoteStore.ChangeFeed =
    switch ProcessInfo.processInfo.environment["COUNTER_CLIENT_FEED"] {
    case "event-stream": .eventStream
    case "long-poll": .longPoll
    default: .platformDefault
    }

var commands = arguments.dropFirst()[...]
while let command = commands.popFirst() {
    switch command {
    case "increase":
        say(try await store.send(Increase()))
    case "set":
        guard let count = commands.popFirst().flatMap({ Int($0) }) else {
            say("set needs a number")
            exit(2)
        }
        say(try await store.send(SetCount(count: count)))
    case "show":
        say("count: \(try await store.view("counter", as: CounterView.self).count)")
    case "follow":
        let following = try RemoteStore(
            url: url, sessionStore: MemorySessionStore(await store.session), configuration: .init(changeFeed: feed))
        try await following.connect()
        for try await view in await following.follow("counter", as: CounterView.self) {
            say("count: \(view.count)")
        }
    case "bench":
        guard let count = commands.popFirst().flatMap({ Int($0) }), count > 0 else {
            say("bench needs a count")
            exit(2)
        }
        try await bench(count)
    default:
        say("unknown command '\(command)'")
        exit(2)
    }
}
await store.close()

/// Sets the counter `count` times and measures, for each, the time from `send` to a second store's new view.
func bench(_ count: Int) async throws {
    let follower = try RemoteStore(
        url: url, sessionStore: MemorySessionStore(await store.session), configuration: .init(changeFeed: feed))
    let patches = Patches()
    let events = await follower.syncEvents()
    let counting = Task {
        for await event in events {
            if case .change = event { await patches.add() }
        }
    }
    defer { counting.cancel() }
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
    let applied = await patches.count
    await follower.close()
    latencies.sort()
    // The nearest rank, as bench/clients/follow.c takes it.
    func percentile(_ share: Double) -> Double {
        milliseconds(latencies[min(latencies.count - 1, Int(share * Double(latencies.count - 1) + 0.5))])
    }
    let cpuPerChange = milliseconds(cpu) * 1_000 / Double(count)
    say(
        String(
            format: "send to follower's view, %d changes: p50 %.3f ms, p99 %.3f ms", count, percentile(0.5),
            percentile(0.99)))
    say(
        String(
            format: "client CPU per change (sender and follower, one process): %.1f µs; %d patches applied",
            cpuPerChange, applied))
    // For bench/client.sh.
    say(
        String(
            format: "RESULT changes=%d p50_ms=%.3f p99_ms=%.3f cpu_us=%.1f patches=%d", count, percentile(0.5),
            percentile(0.99), cpuPerChange, applied))
}

/// A duration in milliseconds.
func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
}

/// How many changes the follower applied.
actor Patches {
    private(set) var count = 0
    func add() { count += 1 }
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

/// Prints a line at once, also into a pipe or a file (where `print` would hold it in a buffer): `follow` prints as
/// the counter changes.
func say(_ line: some CustomStringConvertible) {
    FileHandle.standardOutput.write(Data("\(line)\n".utf8))
}
