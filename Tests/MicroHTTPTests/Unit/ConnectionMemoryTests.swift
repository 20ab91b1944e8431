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

    @Test func aURLLeavesTheFieldsAndTheAnswerTheirRoomLessAnEntryPerArgument() {
        let memory = ConnectionMemory(limit: 4608)
        #expect(memory.longestURL == 4608 - ConnectionMemory.fieldRoom - ConnectionMemory.answerRoom)
        #expect(memory.admits(url: URLShape(length: memory.longestURL, arguments: 0)))
        #expect(!memory.admits(url: URLShape(length: memory.longestURL + 1, arguments: 0)))
        #expect(memory.admits(url: URLShape(length: memory.longestURL - 5 * 64, arguments: 5)))
        #expect(!memory.admits(url: URLShape(length: memory.longestURL - 5 * 64 + 1, arguments: 5)))
    }

    /// libmicrohttpd first reads into half the pool, so a short URL's arguments share the other half with the
    /// header fields' room: 20 with the default pool, 52 with 8 KiB.
    @Test func evenAShortURLHasAtMostTheArgumentsHalfThePoolHolds() {
        for limit in [4608, 8192] {
            let memory = ConnectionMemory(limit: limit)
            #expect(memory.mostArguments == (limit / 2 - ConnectionMemory.fieldRoom) / 64)
            #expect(memory.admits(url: URLShape(length: 20, arguments: memory.mostArguments)))
            #expect(!memory.admits(url: URLShape(length: 20, arguments: memory.mostArguments + 1)))
        }
        #expect(ConnectionMemory(limit: 4608).mostArguments == 20)
        #expect(ConnectionMemory(limit: 8192).mostArguments == 48)
    }

    @Test(arguments: [
        ("/", 1, 0),
        ("/poll?", 6, 0),
        ("/poll?views=a", 13, 1),
        ("/poll?views=a&since=1&since=2", 29, 3),
        ("/a?b&&c", 7, 3),
        ("/a?b&", 5, 1),
        ("/a?&", 4, 1),
        ("/a?b&&", 6, 2),
        ("/a?b?c&d", 8, 2),
        ("/a&b?c", 6, 1),
    ])
    func aURLsShapeCountsTheArgumentsLibmicrohttpdKeeps(url: String, length: Int, arguments: Int) {
        let shape = url.withCString { URLShape($0) }
        #expect(shape == URLShape(length: length, arguments: arguments))
    }
}
