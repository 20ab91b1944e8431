import Synchronization

extension Store {
    /// Subscribes the store to the topics its state declares (``TopicSubscriptions``) and keeps them in step
    /// with the state from now on. Idempotent.
    ///
    /// ``StoreDefinition/makeStore(state:version:identity:)`` starts a new session's store itself; the server starts a
    /// restored one once it is back in service, so that it resumes each topic after the last message its log
    /// recorded.
    public func startTopics() {
        guard subscriptions != nil, inbox != nil else { return }
        let started = core.withLock { core -> Bool in
            guard !core.isClosed, !core.topics.active else { return false }
            core.topics.active = true
            return true
        }
        if started { syncTopics() }
    }

    /// The topics the store subscribes to now.
    public var subscribedTopics: Set<String> { core.withLock { $0.topics.subscribed } }

    /// The position of the last message received from each subscribed topic: what a durable snapshot keeps.
    @_spi(ReMVVMServer) public var topicPositions: [String: UInt64] { core.withLock { $0.topics.positions } }

    /// The state, its version and the topic positions, read together (for a snapshot).
    @_spi(ReMVVMServer) public var versionedStateAndPositions:
        (state: State, version: UInt64, positions: [String: UInt64])
    {
        core.withLock { ($0.state, $0.version, $0.topics.positions) }
    }

    /// Sets the topic positions of a store being restored, before its log is replayed and its topics start.
    @_spi(ReMVVMServer) public func restoreTopicPositions(_ positions: [String: UInt64]) {
        core.withLock { $0.topics.positions = positions }
    }

    /// Derives the subscriptions from the current state and subscribes to and leaves topics to match.
    ///
    /// Serialised by the inbox's lock and reading the state inside it, so the last change always wins.
    func syncTopics() {
        guard let subscriptions, let topics, let inbox else { return }
        let woken = inbox.subscriptionLock.withLock { _ -> [TopicInbox] in
            guard
                let (state, current, positions) = core.withLock({ core in
                    core.topics.active && !core.isClosed
                        ? (core.state, core.topics.subscribed, core.topics.positions) : nil
                })
            else { return [] }
            let wanted = wantedTopics(subscriptions.topics(state))
            guard wanted != current else { return [] }
            let left = current.subtracting(wanted)
            let joined = wanted.subtracting(current)
            // Marked subscribed before the hub queues anything, so the first pass finds the topic.
            core.withLock { core in
                core.topics.subscribed = wanted
                // A topic left (or not followed since a restore) starts afresh when joined again.
                for topic in core.topics.positions.keys where !wanted.contains(topic) {
                    core.topics.positions[topic] = nil
                }
            }
            for topic in left { topics.unsubscribe(inbox, from: topic) }
            var woken: [ObjectIdentifier: TopicInbox] = [:]
            for topic in joined.sorted() {
                for other in topics.subscribe(inbox, to: topic, after: positions[topic]) {
                    woken[ObjectIdentifier(other)] = other
                }
            }
            return Array(woken.values)
        }
        // Outside the lock: another store's pass may change its own subscriptions.
        topics.runPasses(woken)
    }

    /// The valid topics among `declared`, at most ``StoreConfiguration/maxSubscriptions``; the others reported.
    private func wantedTopics(_ declared: [String]) -> Set<String> {
        var wanted = Set<String>()
        for topic in declared where !wanted.contains(topic) {
            do {
                try TopicName.validate(topic)
            } catch {
                configuration.onTopicError(error)
                continue
            }
            guard wanted.count < configuration.maxSubscriptions else {
                configuration.onTopicError(
                    TopicError(
                        .tooManyTopics,
                        "a session may subscribe to at most \(configuration.maxSubscriptions) topics; '\(topic)' left out"
                    ))
                continue
            }
            wanted.insert(topic)
        }
        return wanted
    }

    /// Leaves every topic (the store closed).
    func leaveTopics() {
        guard let topics, let inbox else { return }
        inbox.subscriptionLock.withLock { _ in
            let left = core.withLock { core -> Set<String> in
                defer { core.topics.subscribed = [] }
                return core.topics.subscribed
            }
            for topic in left { topics.unsubscribe(inbox, from: topic) }
        }
    }

    /// The publishes of a commit that travel with it to the durable writer, checked and encoded; empties
    /// `publications` then. None when the hub has no outbox: the store publishes after the commit instead.
    func outboxed(_ publications: inout [Publication]) -> [TopicPublication] {
        guard !publications.isEmpty, let topics, topics.hasOutbox else { return [] }
        var prepared: [TopicPublication] = []
        for publication in publications {
            do {
                prepared += try topics.prepare(publication.action, to: [publication.topic])
            } catch {
                configuration.onTopicError(error)
            }
        }
        publications = []
        return prepared
    }

    /// Carries out the publishes middleware requested, reporting those that fail.
    func publish(_ publications: [Publication]) {
        guard let topics else {
            configuration.onTopicError(TopicError(.unavailable, "this store was made without a topic hub"))
            return
        }
        for publication in publications {
            do {
                try topics.publish(publication.action, to: [publication.topic])
            } catch {
                configuration.onTopicError(error)
            }
        }
    }

    /// Dispatches one pass of topic messages into the store as one commit: each message not received yet
    /// goes through the middleware (which may block or change it) and the reducers, and is logged with a
    /// ``TopicReceipt`` of its position, even when blocked, so it is never received twice.
    func deliver(_ messages: [TopicMessage]) {
        let commit = core.withLock { core -> Commit? in
            guard !core.isClosed else { return nil }
            let old = core.state
            var requests: [EffectRequest] = []
            var publications: [Publication] = []
            var reduced: [any StoreAction] = []
            var received = false
            let recording = !core.commitListeners.isEmpty
            for message in messages {
                guard core.topics.subscribed.contains(message.topic) else { continue }
                if !(message.action is TopicGap), let last = core.topics.positions[message.topic],
                    message.sequence <= last
                {
                    continue
                }
                core.topics.positions[message.topic] = message.sequence
                received = true
                if recording { reduced.append(TopicReceipt(topic: message.topic, sequence: message.sequence)) }
                var passed = message.action
                if !middleware.isEmpty {
                    var context = MiddlewareContext(
                        state: core.state, services: services, identity: identity, topic: message.topic)
                    let result = runMiddleware(passed, context: &context)
                    requests.append(contentsOf: context.requests)
                    publications.append(contentsOf: context.publications)
                    guard case .next(let next) = result else { continue }
                    passed = next
                }
                _ = reducer.reduce(&core.state, with: passed)
                if recording { reduced.append(passed) }
            }
            guard received else { return nil }
            core.version += 1
            if recording {
                let record = CommitRecord(
                    version: core.version, actions: reduced, publications: outboxed(&publications))
                for listener in core.commitListeners { listener(record) }
            }
            let woken = publish(from: old, core: &core).woken
            return Commit(
                outcome: DispatchOutcome(
                    version: core.version, results: [], views: [], otherChanged: [], published: false),
                woken: woken,
                effects: requests,
                publications: publications,
                resubscribe: subscriptions?.inputChanged(old, core.state) ?? false
            )
        }
        if let commit { carryOut(commit) }
    }
}
