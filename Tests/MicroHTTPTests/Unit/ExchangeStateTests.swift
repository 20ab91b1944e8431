import Testing

@testable import MicroHTTP

@Suite("ExchangeState")
struct ExchangeStateTests {
    private static let parking = Parking(
        connection: ConnectionHandle(
            pointer: OpaquePointer(UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)), worker: idleWorker),
        watchToken: 3)

    private func parked() -> ExchangeState {
        var state = ExchangeState()
        state.beginHandling()
        guard case .park = state.handlerReturned() else {
            Issue.record("an unanswered exchange must park")
            return state
        }
        state.didPark(Self.parking)
        return state
    }

    @Test func answerGivenDuringHandlingIsSentWhenTheHandlerReturns() {
        var state = ExchangeState()
        state.beginHandling()
        #expect(state.respond(HTTPResponse(status: 200)) == .stored)
        guard case .send(let response) = state.handlerReturned() else {
            Issue.record("expected .send")
            return
        }
        #expect(response.status == 200)
        #expect(state.phase == .queued)
    }

    @Test func answerToAParkedExchangeResumesItsConnection() {
        var state = parked()
        #expect(state.phase == .parked)
        #expect(state.respond(HTTPResponse(status: 204)) == .resume(Self.parking))
        #expect(state.phase == .resuming)
        guard case .send(let response) = state.daemonResumed() else {
            Issue.record("expected .send after the resume")
            return
        }
        #expect(response.status == 204)
    }

    @Test func onlyTheFirstAnswerCounts() {
        var state = parked()
        #expect(state.respond(HTTPResponse(status: 200)) == .resume(Self.parking))
        #expect(state.respond(HTTPResponse(status: 500)) == .ignored)
        #expect(state.response?.status == 200)
    }

    @Test func answersAfterTheEndAreIgnored() {
        var state = ExchangeState()
        state.beginHandling()
        _ = state.end()
        #expect(state.respond(HTTPResponse(status: 200)) == .ignored)
    }

    @Test func clientLeavingAParkedExchangeAbortsItAndRefusesLaterAnswers() {
        var state = parked()
        #expect(state.clientDisappeared() == Self.parking)
        #expect(state.clientDisappeared() == nil)
        #expect(state.respond(HTTPResponse(status: 200)) == .ignored)
        guard case .abort = state.daemonResumed() else {
            Issue.record("expected .abort")
            return
        }
    }

    @Test func clientLeavingIsIgnoredOnceAnswered() {
        var state = parked()
        _ = state.respond(HTTPResponse(status: 200))
        #expect(state.clientDisappeared() == nil)
    }

    @Test func terminationHandlersAreHandedOutExactlyOnce() {
        var state = ExchangeState()
        #expect(state.addTerminationHandler {})
        #expect(state.addTerminationHandler {})
        #expect(state.end().count == 2)
        #expect(state.end().isEmpty)
        #expect(!state.addTerminationHandler {})
    }
}
