import Testing

@testable import MicroHTTP

/// The estimate of what a request head takes of its connection's memory pool, on numbers.
@Suite("Connection memory")
struct ConnectionMemoryTests {
    @Test func aHeadTakesItsBytesAnEntryPerValueAndACopyOfItsCookieField() {
        #expect(ConnectionMemory.headUse(headBytes: 500, values: 0, cookieFieldBytes: 0) == 500)
        #expect(ConnectionMemory.headUse(headBytes: 500, values: 6, cookieFieldBytes: 0) == 500 + 6 * 64)
        // The copy holds the field and its NUL, rounded up to libmicrohttpd's 16-byte alignment.
        #expect(ConnectionMemory.headUse(headBytes: 500, values: 6, cookieFieldBytes: 100) == 500 + 6 * 64 + 112)
        #expect(ConnectionMemory.headUse(headBytes: 500, values: 6, cookieFieldBytes: 95) == 500 + 6 * 64 + 96)
    }

    @Test func anAnswerNeedsItsRoomLeftInThePool() {
        let memory = ConnectionMemory(limit: 8192)
        let fits = 8192 - ConnectionMemory.answerRoom - 10 * 64
        #expect(memory.leavesRoomForAnswer(headBytes: fits, values: 10, cookieFieldBytes: 0))
        #expect(!memory.leavesRoomForAnswer(headBytes: fits + 1, values: 10, cookieFieldBytes: 0))
        #expect(!memory.leavesRoomForAnswer(headBytes: fits - 16, values: 10, cookieFieldBytes: 16))
        #expect(!ConnectionMemory(limit: 1000).leavesRoomForAnswer(headBytes: 0, values: 0, cookieFieldBytes: 0))
    }
}
