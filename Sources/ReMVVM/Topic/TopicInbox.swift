import Synchronization

/// One store's queue of topic messages not yet delivered, and the lock that orders its subscription
/// changes.
///
/// The hub appends to it under the topic's lock, so each topic's messages arrive in sequence order.
/// One pass at a time takes at most ``TopicConfiguration/maxDeliveriesPerPass`` messages and delivers
/// them as one commit; when more wait, the next pass is offered to the hub's ``WorkScheduler``, so with a
/// server's scheduler a busy topic never holds a session's lock (or a publisher's thread) for longer than one
/// bounded pass.
final class TopicInbox: Sendable {
    struct Contents {
        var queue: [TopicMessage] = []
        /// Whether a pass is running or scheduled: whoever finds it false when appending starts one.
        var draining = false
    }

    private let contents = Mutex(Contents())
    /// Held while the store changes its subscriptions, so that two commits' changes apply in order.
    let subscriptionLock = Mutex(())
    /// Delivers one pass's messages into the store; set once the store exists, and weak in it.
    ///
    /// A class holds the closure: a closure stored as a `Mutex`'s own value is re-abstracted on every
    /// `withLock` that passes it `inout`, one more thunk each pass, until the stack overflows.
    private let receiver = Mutex<Receiver?>(nil)
    private let maxPerPass: Int
    private let statistics: TopicStatistics.Counters

    /// The store's delivery closure, behind a reference that is copied out of the lock as it is.
    final class Receiver: Sendable {
        let deliver: @Sendable ([TopicMessage]) -> Void

        init(_ deliver: @escaping @Sendable ([TopicMessage]) -> Void) {
            self.deliver = deliver
        }
    }

    init(maxPerPass: Int, statistics: TopicStatistics.Counters) {
        self.maxPerPass = max(maxPerPass, 1)
        self.statistics = statistics
    }

    /// Sets what receives the messages.
    func connect(_ receiver: @escaping @Sendable ([TopicMessage]) -> Void) {
        let box = Receiver(receiver)
        self.receiver.withLock { $0 = box }
    }

    /// Appends messages; true when the caller must start passes (``drain(on:)``), after releasing its locks.
    func enqueue(_ messages: some Sequence<TopicMessage>) -> Bool {
        contents.withLock { contents in
            contents.queue.append(contentsOf: messages)
            guard !contents.draining, !contents.queue.isEmpty else { return false }
            contents.draining = true
            return true
        }
    }

    /// Drops the queued messages of `topic` (the store left it).
    func discard(topic: String) {
        contents.withLock { $0.queue.removeAll { $0.topic == topic } }
    }

    /// How many messages wait.
    var count: Int { contents.withLock { $0.queue.count } }

    /// Runs passes until none is left or `scheduler` takes the next one: with a server's scheduler this thread
    /// runs one bounded pass, with ``InlineScheduler`` all of them, one after another (not nested).
    func drain(on scheduler: any WorkScheduler) {
        while runPass() {
            statistics.deferredPasses.add(1, ordering: .relaxed)
            if scheduler.offer({ self.drain(on: scheduler) }) { return }
        }
    }

    /// Delivers up to ``TopicConfiguration/maxDeliveriesPerPass`` messages; returns whether more wait, and the
    /// caller then runs the next pass (``drain(on:)``).
    func runPass() -> Bool {
        let batch = contents.withLock { contents -> [TopicMessage] in
            let taken = Array(contents.queue.prefix(maxPerPass))
            contents.queue.removeFirst(taken.count)
            if taken.isEmpty { contents.draining = false }
            return taken
        }
        guard !batch.isEmpty else { return false }
        statistics.passes.add(1, ordering: .relaxed)
        statistics.delivered.add(batch.count, ordering: .relaxed)
        receiver.withLock { $0 }?.deliver(batch)
        let more = contents.withLock { contents -> Bool in
            if contents.queue.isEmpty { contents.draining = false }
            return contents.draining
        }
        return more
    }
}
