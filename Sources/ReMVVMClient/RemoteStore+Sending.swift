import Foundation
public import ReMVVM
import ReMVVMJSON

extension RemoteStore {
    /// Sends `action` and waits for what the server did with it.
    ///
    /// The action is queued first (and written to the outbox file, if any), so it is delivered even if the server
    /// is down now: this call then waits until it is back. Cancelling the call stops the waiting, not the
    /// delivery; the outcome then reaches ``outboxEvents()``. Throws the ``ClientError`` of a refusal (401, 403,
    /// 404, 422) that no retry can change.
    public func send<Action: StoreAction>(_ action: Action) async throws -> ActionOutcome {
        try await outcome(of: enqueue(action))
    }

    /// Sends `action` and shows `update` applied to view `view` at once, until the server's version holding the
    /// action arrives (then the server's view replaces it) or the action is blocked (then it is rolled back).
    ///
    /// The prediction is re-applied to every newer server view until then, so changes from elsewhere show
    /// through it. It lives in memory: a prediction of an action still queued when the process ends is gone.
    public func send<Action: StoreAction, View: Codable & Sendable>(
        _ action: Action, predicting view: String, as type: View.Type,
        _ update: @escaping @Sendable (inout View) -> Void
    ) async throws -> ActionOutcome {
        try await outcome(of: enqueue(action, predicting: view, as: type, update))
    }

    /// Queues `action` for delivery and returns its `Idempotency-Key` at once; its outcome reaches
    /// ``outboxEvents()``.
    ///
    /// Throws ``ClientError/Kind/sessionNotFound`` before ``connect()`` or after the session ended: an action
    /// belongs to a session.
    @discardableResult
    public func enqueue<Action: StoreAction>(_ action: Action) throws -> String {
        _ = try requireSession()
        var envelope: [String: JSONValue] = ["type": .string(Action.wireName)]
        let payload = try JSONValue(encoding: action)
        if payload != .object([:]) { envelope["payload"] = payload }
        let entry = OutboxEntry(
            key: UUID().uuidString, type: Action.wireName, body: Data(JSONValue.object(envelope).serialized()))
        outbox.append(entry)
        do {
            try outboxFile?.save(outbox)
        } catch {
            outbox.removeLast()
            throw error
        }
        work.continuation.yield()
        return entry.key
    }

    /// Queues `action` with a prediction (see ``send(_:predicting:as:_:)``) and returns its `Idempotency-Key`.
    @discardableResult
    public func enqueue<Action: StoreAction, View: Codable & Sendable>(
        _ action: Action, predicting view: String, as type: View.Type,
        _ update: @escaping @Sendable (inout View) -> Void
    ) throws -> String {
        let key = try enqueue(action)
        predictions.append(Prediction(key: key, view: view, as: type, update: update))
        publishViews()
        return key
    }

    /// Waits for the outcome of the queued action with `key`.
    private func outcome(of key: String) async throws -> ActionOutcome {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters[key] = continuation
                }
            }
        } onCancel: {
            // The handler runs outside the actor; the hop is owned by nothing but ends as soon as it ran.
            Task { await self.stopWaiting(for: key) }
        }
    }

    private func stopWaiting(for key: String) {
        waiters.removeValue(forKey: key)?.resume(throwing: CancellationError())
    }

    /// Delivers the outbox, head first, until cancelled; waits while it is empty or there is no session.
    func deliverOutbox() async {
        var wakeUps = work.stream.makeAsyncIterator()
        var attempt = 0
        while !Task.isCancelled {
            guard let session, let entry = outbox.first else {
                guard await wakeUps.next(isolation: self) != nil else { return }
                continue
            }
            do throws(ClientError) {
                let answer = try await transport.send(
                    "POST", path(session, "/actions"), token: session.token, body: entry.body,
                    headers: ["Idempotency-Key": entry.key], timeout: configuration.requestTimeout)
                attempt = 0
                let object = try WireAnswer.object(answer.body)
                let version = try WireAnswer.version(object["version"], "version")
                let result: ActionOutcome.Result
                if case .string("applied")? = object["results"]?[0] {
                    result = .applied
                } else if case .string(let reason)? = object["results"]?[0]?["blocked"] {
                    result = .blocked(reason: reason)
                } else {
                    // A replay of a large batch keeps no results; a single action's is kept, so this is a fault.
                    throw ClientError(.invalidAnswer, detail: "the dispatch answer has no result for \(entry.type)")
                }
                if case .object(let views)? = object["views"] {
                    _ = replica.applyDispatch(version: version, views: views)
                }
                let outcome = ActionOutcome(result: result, version: version, key: entry.key, type: entry.type)
                settle(entry, with: .success(outcome))
            } catch {
                guard !Task.isCancelled else { return }
                if error.isRetryable {
                    emit(.retrying(error))
                    try? await Task.sleep(
                        for: configuration.retry.delay(attempt: attempt, retryAfter: error.retryAfter))
                    attempt += 1
                    continue
                }
                settle(entry, with: .failure(error))
                if error.kind == .sessionNotFound { sessionEnded(error) }
            }
        }
    }

    /// Takes the delivered (or refused) head off the outbox and tells whoever waits.
    private func settle(_ entry: OutboxEntry, with result: Result<ActionOutcome, ClientError>) {
        guard outbox.first?.key == entry.key else { return }
        outbox.removeFirst()
        // Were the write to fail, the file would keep an entry already delivered: its key makes the next process's
        // attempt a replay of the stored answer, not a second apply.
        try? outboxFile?.save(outbox)
        switch result {
        case .success(let outcome):
            if let index = predictions.firstIndex(where: { $0.key == entry.key }) {
                if outcome.isApplied {
                    predictions[index].heldAt = outcome.version
                } else {
                    predictions.remove(at: index)
                }
            }
            settlePredictions()
            publishViews()
            waiters.removeValue(forKey: entry.key)?.resume(returning: outcome)
            emit(.delivered(outcome))
        case .failure(let error):
            predictions.removeAll { $0.key == entry.key }
            publishViews()
            waiters.removeValue(forKey: entry.key)?.resume(throwing: error)
            emit(.failed(key: entry.key, type: entry.type, error: error))
        }
    }

    /// Drops the predictions whose action the replica now holds.
    func settlePredictions() {
        guard let version = replica.version else { return }
        predictions.removeAll { prediction in prediction.heldAt.map { version.holds($0) } ?? false }
    }
}
