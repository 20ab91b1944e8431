import Foundation
import Synchronization

/// Carries actions between sessions: what is published to a topic is dispatched into every store whose
/// state subscribes to it (``TopicSubscriptions``), as an action like any other.
///
/// Each topic has one total order: a message gets the topic's next sequence number and reaches every
/// subscriber in that order, once. A topic keeps its latest ``TopicConfiguration/retainedMessages``
/// messages: a new subscriber receives them first, and a session restored after a restart catches up
/// from them. The server owns one hub its sessions share (a definition may bring its own,
/// ``StoreDefinition/topics``); middleware publishes through ``MiddlewareContext/publish(_:to:)``, effects
/// through ``EffectContext/publish(_:to:)``, an app route through its request, and anything else (a service,
/// an admin task) here:
///
/// ```swift
/// try server.topics.publish(ChatAction.Message(from: "admin", text: "Closing at six"), to: "chat/lobby")
/// ```
public final class TopicHub: Sendable {
    /// One topic: its last sequence number, retained history and subscribers, behind its own lock.
    final class Channel: Sendable {
        struct State {
            var last: UInt64 = 0
            var retained: [TopicMessage] = []
            var subscribers: [ObjectIdentifier: TopicInbox] = [:]
            /// Whether a shared log's history of the topic was read (always true on one node).
            var synced = false
            /// When the topic was made or last published to, on the hub's clock.
            var touched: Duration
            /// Set when ``TopicHub/sweep()`` dropped the channel: whoever still holds it takes a new one.
            var dropped = false
        }

        let state: Mutex<State>

        init(now: Duration) {
            state = Mutex(State(touched: now))
        }
    }

    /// The hub's limits.
    public let configuration: TopicConfiguration
    private let channels = Mutex<[String: Channel]>([:])
    private let log = Mutex<(any TopicLog)?>(nil)
    /// Where publications go once durable storage orders topics; nil keeps them in the hub (and its log).
    private let outbox = Mutex<OutboxBox?>(nil)

    /// The outbox, behind a class: an existential is copied out of its lock as it is.
    private final class OutboxBox: Sendable {
        let outbox: any TopicOutbox

        init(_ outbox: any TopicOutbox) {
            self.outbox = outbox
        }

        func post(_ publications: [TopicPublication]) throws -> [UInt64] { try outbox.post(publications) }
    }
    /// What decodes a shared log's messages.
    private let actions = Mutex<ActionRegistry?>(nil)
    /// What runs the delivery passes that fan out beyond the publishing thread (``schedulePasses(on:)``).
    private let scheduler = Mutex<any WorkScheduler>(InlineScheduler())
    let counters = TopicStatistics.Counters()
    /// Time since the hub was made, on its clock: how old a topic's last message is.
    private let elapsed: @Sendable () -> Duration

    /// A hub with in-memory topics; `clock` tells how long a topic has been idle (``TopicConfiguration/retention``).
    public init(
        configuration: TopicConfiguration = TopicConfiguration(), clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.configuration = configuration
        elapsed = Self.stopwatch(clock)
    }

    private static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let origin = clock.now
        return { origin.duration(to: clock.now) }
    }

    /// What the hub has done so far.
    public var statistics: TopicStatistics { counters.snapshot }

    /// Publishes `action` to `topic`: it is appended to the topic's order and dispatched into every
    /// subscribed store (whose middleware may still block or change it).
    ///
    /// Delivery to up to 64 subscribers runs on the caller's thread before this returns; a larger fan-out is
    /// offered, in chunks, to the hub's scheduler (``schedulePasses(on:)``). With durable sessions
    /// (``attach(outbox:)``) the message is stored by the durable writer first, and delivered on its thread,
    /// before this returns. Do not call it from a reducer or an observer (inside a store's lock).
    ///
    /// - Returns: The message's position in the topic.
    /// - Throws: ``TopicError`` for an invalid topic name, an action larger than
    ///   ``TopicConfiguration/maxMessageBytes``, or a topic log that cannot store it.
    @discardableResult
    public func publish(_ action: some StoreAction, to topic: String) throws(TopicError) -> UInt64 {
        try publish(action as any StoreAction, to: [topic])[0]
    }

    /// Publishes `action` to each of `topics`, in order; see ``publish(_:to:)-(_,String)``.
    ///
    /// - Returns: The message's position in each topic.
    /// - Throws: ``TopicError`` when there are more than ``TopicConfiguration/maxTopicsPerPublish`` topics or
    ///   for any reason a single publish throws; nothing is published then.
    @discardableResult
    public func publish(_ action: any StoreAction, to topics: [String]) throws(TopicError) -> [UInt64] {
        let prepared = try prepare(action, to: topics)
        if let outbox = outbox.withLock({ $0 }) {
            do {
                return try outbox.post(prepared)
            } catch {
                throw TopicError(.unavailable, "'\(action.wireName)' cannot be stored: \(error)")
            }
        }
        let log = self.log.withLock { $0 }
        var sequences: [UInt64] = []
        var woken: [TopicInbox] = []
        for publication in prepared {
            let (sequence, inboxes) = try append(
                publication.action, encoded: publication.encoded, topic: publication.topic, log: log)
            sequences.append(sequence)
            woken += inboxes
        }
        counters.published.add(topics.count, ordering: .relaxed)
        runPasses(woken)
        return sequences
    }

    /// Whether publications travel with their commits to the durable writer (``attach(outbox:)``).
    @_spi(ReMVVMServer) public var hasOutbox: Bool { outbox.withLock { $0 != nil } }

    /// Checks `action` for `topics` and encodes it once: one publication per topic, nothing published yet.
    ///
    /// - Throws: ``TopicError`` for too many topics, an invalid name, or an action that cannot be encoded or
    ///   is larger than ``TopicConfiguration/maxMessageBytes``.
    @_spi(ReMVVMServer) public func prepare(_ action: any StoreAction, to topics: [String]) throws(TopicError)
        -> [TopicPublication]
    {
        guard topics.count <= configuration.maxTopicsPerPublish else {
            throw TopicError(
                .tooManyTopics,
                "a publish may name at most \(configuration.maxTopicsPerPublish) topics, not \(topics.count)")
        }
        for topic in topics { try TopicName.validate(topic) }
        let encoded: Data
        do {
            encoded = try ActionRegistry.encode(action)
        } catch {
            throw TopicError(.unavailable, "'\(action.wireName)' cannot be encoded: \(error)")
        }
        guard encoded.count <= configuration.maxMessageBytes else {
            throw TopicError(
                .messageTooLarge,
                "'\(action.wireName)' is \(encoded.count) bytes as JSON, more than the \(configuration.maxMessageBytes) a topic message may be"
            )
        }
        return topics.map { TopicPublication(topic: $0, action: action, encoded: encoded) }
    }

    /// Posts every publication through `outbox` from now on: a session's go with its commit (``CommitRecord``),
    /// the others through ``TopicOutbox/post(_:)``; the writer hands them back, durable and in position, to
    /// ``deliver(durable:)``. Set once, at start, after ``attach(_:actions:)``.
    @_spi(ReMVVMServer) public func attach(outbox: any TopicOutbox) {
        let box = OutboxBox(outbox)
        self.outbox.withLock { $0 = box }
    }

    /// Queues durable messages, each at the position storage gave it, for their topics' subscribers, and
    /// starts their passes: the writer calls it once their transaction committed, before it answers anyone.
    ///
    /// Holds each topic's lock only in memory: a shared log is read (another node published in between) on
    /// the caller's thread, the writer's.
    @_spi(ReMVVMServer) public func deliver(durable messages: [(TopicPublication, UInt64)]) {
        guard !messages.isEmpty else { return }
        let shared = sharedLog()
        let retaining = configuration.retainedMessages
        let now = elapsed()
        var woken: [ObjectIdentifier: TopicInbox] = [:]
        for (publication, sequence) in messages {
            let topic = publication.topic
            let inboxes = withChannel(topic) { state -> [TopicInbox] in
                state.touched = now
                if shared != nil, state.subscribers.isEmpty {
                    // Nobody here hears it: the topic is read when someone subscribes, not now.
                    state.synced = false
                    return []
                }
                if let shared, !state.synced || sequence != state.last + 1 {
                    if state.synced, sequence <= state.last { return [] }  // Read already, through a wake-up.
                    return sync(&state, topic: topic, from: shared)
                }
                state.last = max(state.last, sequence)
                let message = TopicMessage(topic: topic, sequence: sequence, action: publication.action)
                if retaining > 0 {
                    state.retained.append(message)
                    if state.retained.count > retaining { state.retained.removeFirst(state.retained.count - retaining) }
                }
                return state.subscribers.values.filter { $0.enqueue(CollectionOfOne(message)) }
            }
            for inbox in inboxes { woken[ObjectIdentifier(inbox)] = inbox }
        }
        counters.published.add(messages.count, ordering: .relaxed)
        runPasses(Array(woken.values))
    }

    /// The retained messages of `topic`, oldest first.
    public func history(of topic: String) -> [TopicMessage] {
        guard let channel = channels.withLock({ $0[topic] }) else { return [] }
        return channel.state.withLock { $0.retained }
    }

    /// How many stores subscribe to `topic`.
    public func subscriberCount(of topic: String) -> Int {
        guard let channel = channels.withLock({ $0[topic] }) else { return 0 }
        return channel.state.withLock { $0.subscribers.count }
    }

    /// Keeps the retained history in `log` from now on, after loading what it holds (decoded with
    /// `actions`); called once at start, before any session subscribes. A second call does nothing.
    ///
    /// - Throws: The log's error when it cannot be read; a stored message that no longer decodes is skipped.
    ///
    /// A shared log (``TopicLog/isShared``) is read per topic instead, when a store first subscribes to it
    /// and whenever the log wakes the hub (``TopicLog/watchTopics(_:)``).
    @_spi(ReMVVMServer) public func attach(_ log: any TopicLog, actions: ActionRegistry) throws {
        guard self.log.withLock({ $0 == nil }) else { return }
        if log.isShared {
            self.log.withLock { $0 = log }
            self.actions.withLock { $0 = actions }
            log.watchTopics { [weak self] topic, sequence in self?.wake(topic, through: sequence) }
            return
        }
        let entries = try log.retainedTopicMessages()
        for entry in entries {
            let action = try? actions.decodeActions(from: entry.action).first
            withChannel(entry.topic) { state in
                state.last = max(state.last, entry.sequence)
                guard let action else { return }
                state.retained.append(TopicMessage(topic: entry.topic, sequence: entry.sequence, action: action))
                if state.retained.count > configuration.retainedMessages { state.retained.removeFirst() }
            }
        }
        self.log.withLock { $0 = log }
    }

    // MARK: - Subscribers

    /// Subscribes `inbox` to `topic` and queues what it must receive first: the retained history for a new
    /// subscriber (`cursor` nil), else the messages after `cursor`, preceded by a ``TopicGap`` when some
    /// of them are no longer retained. Returns the inboxes whose pass the caller must start once it holds
    /// no lock: `inbox`, and with a shared log the other subscribers of what reading it brought.
    func subscribe(_ inbox: TopicInbox, to topic: String, after cursor: UInt64?) -> [TopicInbox] {
        let shared = sharedLog()
        var woken: [TopicInbox] = []
        let needsPass = withChannel(topic) { state in
            if let shared { woken = sync(&state, topic: topic, from: shared) }
            state.subscribers[ObjectIdentifier(inbox)] = inbox
            var backlog: [TopicMessage] = []
            if let cursor {
                let first = state.retained.first?.sequence ?? state.last + 1
                if cursor + 1 < first || cursor > state.last {
                    // Some messages are gone (or the topic's history restarted): say so, then resume.
                    let gap = TopicGap(topic: topic, after: cursor, resumedAt: first)
                    backlog.append(TopicMessage(topic: topic, sequence: first - 1, action: gap))
                    counters.gaps.add(1, ordering: .relaxed)
                }
                backlog += state.retained.filter { $0.sequence > cursor || cursor > state.last }
            } else {
                backlog = state.retained
            }
            return inbox.enqueue(backlog)
        }
        return needsPass ? woken.filter { $0 !== inbox } + [inbox] : woken.filter { $0 !== inbox }
    }

    /// Stops delivering `topic` to `inbox`, and drops what of it is still queued.
    func unsubscribe(_ inbox: TopicInbox, from topic: String) {
        guard let channel = channels.withLock({ $0[topic] }) else { return }
        channel.state.withLock { state in _ = state.subscribers.removeValue(forKey: ObjectIdentifier(inbox)) }
        inbox.discard(topic: topic)
    }

    /// A new inbox counted in this hub's statistics.
    func makeInbox() -> TopicInbox {
        TopicInbox(maxPerPass: configuration.maxDeliveriesPerPass, statistics: counters)
    }

    /// Runs the delivery passes that do not fit on the publishing thread on `scheduler` from now on: a server
    /// sets the one whose workers it owns when it is made. Until then, and with ``InlineScheduler``, they run on
    /// the thread that caused them, as they do whenever the scheduler declines.
    @_spi(ReMVVMServer) public func schedulePasses(on scheduler: any WorkScheduler) {
        self.scheduler.withLock { $0 = scheduler }
    }

    /// Runs the passes of each inbox: on this thread for up to 64 inboxes, else in chunks of 64 offered to the
    /// scheduler (run here when it declines); an inbox's passes after its first go to the scheduler too.
    func runPasses(_ inboxes: [TopicInbox]) {
        guard !inboxes.isEmpty else { return }
        let scheduler = self.scheduler.withLock { $0 }
        guard inboxes.count > 64 else {
            for inbox in inboxes { inbox.drain(on: scheduler) }
            return
        }
        for start in stride(from: 0, to: inboxes.count, by: 64) {
            let chunk = Array(inboxes[start..<min(start + 64, inboxes.count)])
            let job: @Sendable () -> Void = { for inbox in chunk { inbox.drain(on: scheduler) } }
            if !scheduler.offer(job) { job() }
        }
    }

    // MARK: - Private

    private func channel(for topic: String) -> Channel {
        channels.withLock { channels in
            if let channel = channels[topic] { return channel }
            let channel = Channel(now: elapsed())
            channels[topic] = channel
            return channel
        }
    }

    /// Runs `body` under the lock of `topic`'s channel, made if need be, and made again when a sweep dropped
    /// the one found meanwhile.
    private func withChannel<Result: Sendable>(
        _ topic: String, _ body: (inout Channel.State) -> Result
    ) -> Result {
        while true {
            let channel = channel(for: topic)
            let result = channel.state.withLock { state -> Result? in state.dropped ? nil : body(&state) }
            if let result { return result }
        }
    }

    /// Appends one message under the topic's lock and queues it for every subscriber; returns its sequence
    /// and the inboxes that need a pass.
    private func append(
        _ action: any StoreAction, encoded: Data, topic: String, log: (any TopicLog)?
    ) throws(TopicError) -> (UInt64, [TopicInbox]) {
        let retaining = configuration.retainedMessages
        let now = elapsed()
        let result = withChannel(topic) { state -> Result<(UInt64, [TopicInbox]), TopicError> in
            state.touched = now
            let sequence: UInt64
            if let log {
                do {
                    sequence = try log.append(topic: topic, action: encoded, retaining: retaining)
                } catch {
                    return .failure(TopicError(.unavailable, "topic '\(topic)' cannot store the message: \(error)"))
                }
            } else {
                sequence = state.last + 1
            }
            if let log, log.isShared, !state.synced || sequence != state.last + 1 {
                // Other nodes published in between (or the topic was never read): read the log up to and
                // with this message, so that every subscriber here gets them all in the database's order.
                return .success((sequence, sync(&state, topic: topic, from: log)))
            }
            state.last = sequence
            let message = TopicMessage(topic: topic, sequence: sequence, action: action)
            if retaining > 0 {
                state.retained.append(message)
                if state.retained.count > retaining { state.retained.removeFirst(state.retained.count - retaining) }
            }
            var woken: [TopicInbox] = []
            for inbox in state.subscribers.values where inbox.enqueue(CollectionOfOne(message)) {
                woken.append(inbox)
            }
            return .success((sequence, woken))
        }
        return try result.get()
    }

    // MARK: - Retention

    /// Drops from memory every topic that has no subscriber and no message newer than
    /// ``TopicConfiguration/retention``; returns them, with their last positions, and the topics that have
    /// subscribers here. Touches no storage: ``tidy()`` hands the result to the log.
    @_spi(ReMVVMServer) public func sweep() -> TopicSweep {
        let now = elapsed()
        let retention = configuration.retention
        var sweep = TopicSweep()
        channels.withLock { channels in
            var dropped: [String] = []
            for (topic, channel) in channels {
                channel.state.withLock { state in
                    if !state.subscribers.isEmpty {
                        sweep.followed.append(topic)
                    } else if now - state.touched >= retention {
                        state.dropped = true
                        dropped.append(topic)
                        sweep.dropped.append(TopicSweep.Dropped(topic: topic, last: state.last))
                    }
                }
            }
            for topic in dropped { channels[topic] = nil }
        }
        counters.dropped.add(sweep.dropped.count, ordering: .relaxed)
        return sweep
    }

    /// Drops the topics nobody uses (``sweep()``), then their stored messages from the topic log, holding no
    /// lock meanwhile; a shared log also forgets the topics no node has used for the retention. Call it off
    /// the request path (the server's housekeeper does, about every ``TopicConfiguration/retention`` / 10).
    ///
    /// - Returns: How many topics were dropped from memory.
    /// - Throws: The log's error; the rows are forgotten at a later call then.
    @_spi(ReMVVMServer) @discardableResult public func tidy() throws -> Int {
        let swept = sweep()
        guard let log = self.log.withLock({ $0 }), !swept.dropped.isEmpty || log.isShared else {
            return swept.dropped.count
        }
        try log.forget(swept, retention: configuration.retention)
        return swept.dropped.count
    }

    /// How many topics are held in memory now.
    public var topicCount: Int { channels.withLock { $0.count } }

    // MARK: - A shared log

    /// Whether the attached log is shared by several nodes: subscribing then reads it.
    var readsSharedLog: Bool { sharedLog() != nil }

    /// The attached log when several nodes share it.
    private func sharedLog() -> (any TopicLog)? {
        log.withLock { log in log.flatMap { $0.isShared ? $0 : nil } }
    }

    /// Another node appended to `topic` (nil: to any topic), up to `sequence` when known: reads the new
    /// messages of every topic with a subscriber here and queues them, in the database's order, for its
    /// subscribers. A topic this node already has through `sequence` (its own publish) is not read.
    @_spi(ReMVVMServer) public func wake(_ topic: String?, through sequence: UInt64? = nil) {
        guard let log = sharedLog() else { return }
        let woken: [(String, Channel)] = channels.withLock { channels in
            if let topic { return channels[topic].map { [(topic, $0)] } ?? [] }
            return channels.map { ($0.key, $0.value) }
        }
        var inboxes: [TopicInbox] = []
        for (name, channel) in woken {
            inboxes += channel.state.withLock { state in
                // A topic nobody here hears is read again when someone subscribes.
                guard !state.subscribers.isEmpty else { return [] }
                if let sequence, state.synced, sequence <= state.last { return [] }
                return sync(&state, topic: name, from: log)
            }
        }
        counters.wakeUps.add(1, ordering: .relaxed)
        runPasses(inboxes)
    }

    /// Reads the shared log's messages of `topic` after the last one this node has, under the topic's lock,
    /// appends them to its history and queues them for its subscribers; returns the inboxes that need a
    /// pass. When the log no longer holds the next message, the subscribers are told (a ``TopicGap``) and
    /// the history starts again from what the log holds, so it never has a hole.
    private func sync(_ state: inout Channel.State, topic: String, from log: any TopicLog) -> [TopicInbox] {
        var read: (last: UInt64, entries: [TopicLogEntry])
        var queued: [TopicMessage] = []
        do {
            read = try log.messages(of: topic, after: state.synced ? state.last : 0)
            if state.synced, read.last < state.last {
                // Every node left the topic idle for its retention, so it was forgotten and started over at 1:
                // the subscribers here are told, and follow it from its new start.
                read = try log.messages(of: topic, after: 0)
                let resumed = read.entries.first?.sequence ?? read.last + 1
                let gap = TopicGap(topic: topic, after: state.last, resumedAt: resumed)
                queued.append(TopicMessage(topic: topic, sequence: resumed - 1, action: gap))
                counters.gaps.add(1, ordering: .relaxed)
                state.last = 0
                state.retained = []
            }
        } catch {
            // The next publish, wake-up or subscription reads again.
            counters.readFailures.add(1, ordering: .relaxed)
            return []
        }
        let actions = self.actions.withLock { $0 }
        let fresh = read.entries.filter { !state.synced || $0.sequence > state.last }
        if let first = fresh.first?.sequence ?? (read.last > state.last ? read.last + 1 : nil),
            state.synced, first > state.last + 1
        {
            let gap = TopicGap(topic: topic, after: state.last, resumedAt: first)
            queued.append(TopicMessage(topic: topic, sequence: first - 1, action: gap))
            state.retained = []
            counters.gaps.add(1, ordering: .relaxed)
        }
        if !state.synced { state.retained = [] }
        for entry in fresh {
            guard let action = try? actions?.decodeActions(from: entry.action).first else { continue }
            let message = TopicMessage(topic: topic, sequence: entry.sequence, action: action)
            state.retained.append(message)
            // A first read is history for the subscribers to come (``subscribe(_:to:after:)`` queues it).
            if state.synced || !state.subscribers.isEmpty { queued.append(message) }
        }
        let retaining = configuration.retainedMessages
        if state.retained.count > retaining { state.retained.removeFirst(state.retained.count - retaining) }
        state.last = max(state.last, read.last, fresh.last?.sequence ?? 0)
        state.synced = true
        guard !queued.isEmpty else { return [] }
        return state.subscribers.values.filter { $0.enqueue(queued) }
    }
}
