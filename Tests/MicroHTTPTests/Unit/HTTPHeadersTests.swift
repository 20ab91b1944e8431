import MicroHTTP
import Testing

@Suite("HTTPHeaders")
struct HTTPHeadersTests {
    @Test func lookupIgnoresCaseOfTheName() {
        let headers: HTTPHeaders = ["Content-Type": "application/json"]
        #expect(headers["content-type"] == "application/json")
        #expect(headers["CONTENT-TYPE"] == "application/json")
        #expect(headers.contains("Content-type"))
        #expect(headers["Content-Length"] == nil)
    }

    /// Names of one length are compared byte by byte: a differing byte anywhere is another name, and only
    /// ASCII letters fold (`-` is not `\r` with its case bit set).
    @Test func namesOfOneLengthMatchOnlyWhenEveryByteDoes() {
        let headers: HTTPHeaders = [
            "X-Request-Deadline-Milliseconds": "250", "If-Match": "\"e.1\"", "Accept-Charset": "utf-8",
        ]
        #expect(headers["x-request-deadline-milliseconds"] == "250")
        #expect(headers["X-Request-Deadline-Millisecondz"] == nil)
        #expect(headers["Y-Request-Deadline-Milliseconds"] == nil)
        #expect(headers["iF-mAtCh"] == "\"e.1\"")
        #expect(headers["If-Matcx"] == nil)
        #expect(headers["Accept\rCharset"] == nil)
        #expect(headers["Accept-Charsex"] == nil)
    }

    @Test func repeatedFieldsKeepTheirOrder() {
        var headers = HTTPHeaders()
        headers.add(name: "Set-Cookie", value: "a=1")
        headers.add(name: "X-Other", value: "x")
        headers.add(name: "set-cookie", value: "b=2")
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        #expect(headers["Set-Cookie"] == "a=1")
        #expect(headers.map(\.name) == ["Set-Cookie", "X-Other", "set-cookie"])
        #expect(headers.count == 3)
    }

    @Test func assigningReplacesEveryFieldOfThatNameInPlace() {
        var headers = HTTPHeaders([
            (name: "A", value: "1"), (name: "Vary", value: "x"), (name: "B", value: "2"), (name: "vary", value: "y"),
        ])
        headers["VARY"] = "z"
        #expect(headers.map(\.name) == ["A", "VARY", "B"])
        #expect(headers.values(for: "vary") == ["z"])
    }

    @Test func assigningNilRemovesTheField() {
        var headers: HTTPHeaders = ["A": "1", "B": "2"]
        headers["a"] = nil
        #expect(!headers.contains("A"))
        #expect(headers.count == 1)
    }

    @Test func equalityComparesNamesCaseInsensitivelyAndValuesExactly() {
        let upper: HTTPHeaders = ["A": "1"]
        let lower: HTTPHeaders = ["a": "1"]
        let other: HTTPHeaders = ["A": "2"]
        #expect(upper == lower)
        #expect(upper != other)
    }
}

@Suite("HTTPResponse.problem")
struct ProblemResponseTests {
    @Test func problemBodyIsRFC9457JSON() {
        let response = HTTPResponse.problem(status: 413, title: "Payload Too Large", detail: "say \"hi\"\n")
        #expect(response.status == 413)
        #expect(response.headers["content-type"] == "application/problem+json")
        guard case .bytes(let bytes) = response.body else {
            Issue.record("expected a bytes body")
            return
        }
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"type":"about:blank","title":"Payload Too Large","status":413,"detail":"say \"hi\"\n"}"#)
    }

    /// The transport's own errors carry the header fields every answer of the server carries, once each.
    @Test func problemsAreNeitherSniffedNorStored() {
        let response = HTTPResponse.problem(
            status: 503, title: "Service Unavailable", headers: ["Connection": "close", "Cache-Control": "no-cache"])
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
        #expect(response.headers.values(for: "Cache-Control") == ["no-store"])
        #expect(response.headers["Connection"] == "close")
    }
}

@Suite("Responder without a connection")
struct DetachedResponderTests {
    @Test func firstAnswerIsDeliveredAndLaterOnesIgnored() {
        let delivered = Shared<[Int]>([])
        let ended = Shared(0)
        let responder = Responder { response in delivered.update { $0.append(response.status) } }
        responder.onTermination { ended.update { $0 += 1 } }
        #expect(responder.respond(HTTPResponse(status: 201)))
        #expect(!responder.respond(HTTPResponse(status: 500)))
        #expect(delivered.value == [201])
        #expect(ended.value == 1)
        #expect(responder.isAnswered)
        let ranAtOnce = Shared(false)
        responder.onTermination { ranAtOnce.update { $0 = true } }
        #expect(ranAtOnce.value)
    }
}
