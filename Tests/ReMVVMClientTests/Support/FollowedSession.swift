import ExampleApp
import Foundation
import ReMVVMClient

/// A new session at `url` with a writer and a follower of its counter view, the follower's sync events recorded:
/// what the resilience and takeover tests break things under. The writer's counter is at 1 and the follower has
/// seen it once ``start(url:feed:)`` returns; ``close()`` ends both.
struct FollowedSession: Sendable {
    let writer: RemoteStore
    let follower: RemoteStore
    /// The follower's sync events, in order.
    let recorder: Recorder<SyncEvent>
    /// The follower's counter view as it changes.
    let values: AsyncThrowingStream<CounterView, any Error>
    private let recording: Task<Void, Never>

    static func start(url: URL, feed: RemoteStore.ChangeFeed) async throws -> FollowedSession {
        let fast = RemoteStore.Configuration(
            retry: RetryPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500)),
            followsChanges: false)
        let writer = try RemoteStore(url: url, configuration: fast)
        try await writer.connect()
        guard let session = await writer.session else { throw TestFailure("the writer has no session") }
        var following = fast
        following.followsChanges = true
        following.changeFeed = feed
        let follower = try RemoteStore(
            url: url, sessionStore: MemorySessionStore(session), configuration: following)
        let events = await follower.syncEvents()
        let recorder = Recorder<SyncEvent>()
        let recording = Task { for await event in events { await recorder.append(event) } }
        try await follower.connect()
        let values = await follower.follow("counter", as: CounterView.self)
        let followed = FollowedSession(
            writer: writer, follower: follower, recorder: recorder, values: values, recording: recording)
        _ = try await writer.send(CounterAction.Increase())
        _ = try await first(values) { $0.counter == "1" }
        return followed
    }

    /// The session's id.
    var sessionID: String {
        get async { await writer.session?.id ?? "" }
    }

    func close() async {
        recording.cancel()
        await writer.close()
        await follower.close()
    }
}
