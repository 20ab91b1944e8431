import MicroHTTP
import Testing

@testable import ReMVVMServer

/// The parsers of request parameters and headers, without I/O: cursors, entity tags, `Idempotency-Key`s, and
/// the session ids and tokens they guard.
@Suite("Request parsing")
struct RequestParsingTests {
    @Test(
        arguments: [
            ("3f2a9c1b7d4e6a80.4", "3f2a9c1b7d4e6a80", 4),
            ("\"3f2a9c1b7d4e6a80.4\"", "3f2a9c1b7d4e6a80", 4),
            ("W/\"a-b_C.0\"", "a-b_C", 0),
            ("e.9999999999999999999", "e", 9_999_999_999_999_999_999),
        ] as [(String, String, UInt64)])
    func cursorsInTheDocumentedFormParse(text: String, epoch: String, number: UInt64) throws {
        let cursor = try #require(Cursor(parsing: text))
        #expect(cursor.epoch == epoch)
        #expect(cursor.number == number)
        #expect(Cursor(parsing: cursor.description) == cursor)
    }

    /// A cursor is written in one form, whichever it was read from: an answer's `from` is its `since`.
    @Test(
        arguments: [
            ("e.3", "e.3"), ("\"e.3\"", "e.3"), ("W/\"e.3\"", "e.3"), ("e.007", "e.7"), ("e.0", "e.0"),
            ("e.00", "e.0"),
        ] as [(String, String)])
    func aCursorIsWrittenInOneForm(text: String, written: String) throws {
        #expect(try #require(Cursor(parsing: text)).description == written)
    }

    /// Everything outside `^[A-Za-z0-9_-]{1,64}\.[0-9]{1,19}$` (the OpenAPI `Version`), quotes aside.
    @Test(arguments: [
        "", ".", "a.", ".1", "a.b", "a.+1", "a.-1", "a.1 ", " a.1", "é.1", "a.١", "a b.1", "a.1.", "a\"b.1",
        "a.12345678901234567890", String(repeating: "a", count: 65) + ".1", "\"a.1", "a.1\"",
    ])
    func anythingElseIsNoCursor(text: String) {
        #expect(Cursor(parsing: text) == nil)
    }

    @Test func ifMatchTakesOnlyAStrongTagWithItsQuotes() {
        #expect(Cursor(entityTag: "\"e.3\"") == Cursor(epoch: "e", number: 3))
        for text in ["e.3", "W/\"e.3\"", "\"e.3\", \"e.4\"", "\"\"", "\"", "*"] {
            #expect(Cursor(entityTag: text) == nil, "\(text)")
        }
    }

    @Test(arguments: ["k", "retry-1", "a b", String(repeating: "x", count: 255), "!~"])
    func idempotencyKeysOfVisibleAsciiAreValid(key: String) {
        #expect(IdempotencyCache.isValidKey(key))
    }

    @Test(arguments: ["", " k", "k ", "k\t", "ключ", "k\u{7F}", String(repeating: "x", count: 256)])
    func otherIdempotencyKeysAreNot(key: String) {
        #expect(!IdempotencyCache.isValidKey(key))
    }

    @Test func idsAndTokensAre128RandomBitsInHex() {
        let tokens = (0..<1000).map { _ in SecureToken.make() }
        #expect(Set(tokens).count == tokens.count)
        Self.expectRandomHex(tokens, digits: 32)
    }

    @Test func epochsAre60RandomBitsIn15HexDigits() {
        // Fifteen: short enough for Swift to keep the string inline in the session.
        Self.expectRandomHex((0..<1000).map { _ in SecureToken.makeEpoch() }, digits: 15)
    }

    /// Every draw is `digits` lowercase hex digits, and every digit shows up in every position over the
    /// draws: the bits are not stuck.
    private static func expectRandomHex(_ draws: [String], digits: Int) {
        for draw in draws {
            #expect(draw.utf8.count == digits)
            #expect(draw.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        }
        for position in 0..<digits {
            let seen = Set(draws.map { $0.utf8[$0.utf8.index($0.utf8.startIndex, offsetBy: position)] })
            #expect(seen.count == 16, "position \(position)")
        }
    }

    @Test(arguments: [
        ("application/json", true), ("Application/JSON", true), (" application/json ; charset=utf-8", true),
        ("application/json;charset=utf-8", true), ("\tapplication/json\t", true), ("application/jsonx", false),
        ("application/jso", false), ("text/json", false), ("", false), (";application/json", false),
        ("application\u{0F}json", false), ("application/json-patch+json", false), ("applicatioN/jsoN;", true),
    ])
    func onlyTheJSONMediaTypeIsJSON(contentType: String, isJSON: Bool) {
        #expect(API.isJSON(contentType) == isJSON)
    }

    @Test(
        arguments: [
            ("Bearer abc", "abc"), ("bearer abc", "abc"), ("BEARER  abc ", "abc"), ("  Bearer\tx abc", nil),
            (" Bearer abc\t", "abc"), ("Bearer", nil), ("Bearer ", nil), ("Bearer   ", nil), ("Basic abc", nil),
            ("Bearerabc", nil), ("Bear abc", nil), ("Bearer a b", "a b"), ("Bearer é", "é"), ("", nil),
        ] as [(String, String?)])
    func bearerTokensAreReadFromTheAuthorizationHeader(header: String, token: String?) {
        #expect(Credentials.bearerToken(header).map(String.init) == token)
    }

    @Test(arguments: [
        ("/healthz", Route.health), ("/metrics", .metrics), ("/v1/sessions", .sessions), ("/v1/sessions/", .sessions),
        ("/v1", .unknownAPI), ("/v1/", .unknownAPI), ("/v1/sessionsx", .unknownAPI),
        ("/v1/sessions//actions", .unknownAPI), ("/v1/sessions/abc/", .unknownAPI),
        ("/v1/sessions/abc/actions/x", .unknownAPI), ("/v1/sessions/abc/Actions", .unknownAPI),
        ("/v1/sessions/\(RequestParsingTests.id)", .session(id: RequestParsingTests.key)),
        ("/v1/sessions/\(RequestParsingTests.id)/actions", .actions(id: RequestParsingTests.key)),
        ("/v1/sessions/\(RequestParsingTests.id)/poll", .poll(id: RequestParsingTests.key)),
        ("/v1/sessions/\(RequestParsingTests.id)/events", .events(id: RequestParsingTests.key)),
        // Routed by the segments alike; an id no session could have names no key.
        ("/v1/sessions/abc", .session(id: nil)), ("/v1/sessions/abc/actions", .actions(id: nil)),
        ("/v1/sessions/é/poll", .poll(id: nil)), ("/v1/sessions/a b/events", .events(id: nil)),
        ("/v1/sessions/\(RequestParsingTests.id.uppercased())/poll", .poll(id: nil)),
        ("/v1/sessions/\(RequestParsingTests.id)0", .session(id: nil)),
        ("/healthz/", .staticFile), ("/HEALTHZ", .staticFile), ("", .staticFile), ("/v1x", .staticFile),
        ("/", .staticFile), ("/index.html", .staticFile),
    ])
    func pathsRouteByTheirExactSegments(path: String, route: Route) {
        #expect(Route(path: path) == route)
    }

    /// A session id as the server writes them, and its key.
    static let id = "0123456789abcdef00112233445566ff"
    static let key = SessionKey(id)

    /// The credentials name the token's key, from the `Authorization` header or else the cookie; a token no
    /// session could have is presented credentials with no key, so no session is found with it, unless a cookie
    /// holds the session's token (the header then carries the app's own credentials).
    @Test(
        arguments: [
            (["Authorization": "Bearer \(RequestParsingTests.id)"], RequestParsingTests.key, false),
            (["Authorization": " bearer  \(RequestParsingTests.id)\t"], RequestParsingTests.key, false),
            (["Authorization": "Bearer abc"], nil, false),
            (["Cookie": "a=b; remvvm_token= \(RequestParsingTests.id)"], RequestParsingTests.key, true),
            (["Cookie": "remvvm_token=\(RequestParsingTests.id.uppercased())"], nil, true),
            // The header wins over the cookie when it holds a key; one that holds none (the app's JWT) leaves the
            // session's token to the cookie.
            (
                [
                    "Authorization": "Bearer \(RequestParsingTests.id)",
                    "Cookie": "remvvm_token=\(String(repeating: "0", count: 32))",
                ],
                RequestParsingTests.key, false
            ),
            (
                ["Authorization": "Bearer x.y.z", "Cookie": "remvvm_token=\(RequestParsingTests.id)"],
                RequestParsingTests.key, true
            ),
        ] as [(HTTPHeaders, SessionKey?, Bool)])
    func credentialsNameTheTokensKey(headers: HTTPHeaders, key: SessionKey?, fromCookie: Bool) throws {
        let credentials = try #require(Credentials(HTTPRequest(method: "GET", path: "/", headers: headers)))
        #expect(credentials.token == key)
        #expect(credentials.fromCookie == fromCookie)
    }

    @Test func noCredentialsWithoutAnAuthorizationHeaderOrATokenCookie() {
        #expect(Credentials(HTTPRequest(method: "GET", path: "/", headers: ["Cookie": "a=b"])) == nil)
        #expect(Credentials(HTTPRequest(method: "GET", path: "/", headers: ["Authorization": "Basic x"])) == nil)
    }

    @Test func tokensCompareByTheirBitsAndOnlyInTheirOneSpelling() throws {
        let token = SecureToken.make()
        let key = try #require(SessionKey(token))
        #expect(SessionKey(String(token)).map(key.matches) == true)
        // Each digit counts, the first and the last included.
        for index in [0, 15, 16, 31] {
            var digits = Array(token.utf8)
            digits[index] = digits[index] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
            #expect(SessionKey(String(decoding: digits, as: UTF8.self)).map(key.matches) == false)
        }
        // Only the 32 lowercase hex digits SecureToken writes name a session.
        for other in [String(token.dropLast()), token + "0", "", token.uppercased(), "g" + token.dropFirst()] {
            #expect(SessionKey(other) == nil || other == token, "\(other)")
        }
        // A slice of a longer header reads its own bytes.
        let header = "Bearer \(token) "
        #expect(SessionKey(header.dropFirst(7).dropLast()).map(key.matches) == true)
        #expect(SessionKey(header.dropFirst(6).dropLast(2)) == nil)
    }

    @Test func everyDigitIsReadByItsValueAndEveryOtherByteRefused() throws {
        // The reader takes eight digits at a time; this holds it to the plain definition, byte by byte.
        let digits = Array("0123456789abcdef".utf8)
        let base = Array(SecureToken.make().utf8)
        for position in 0..<32 {
            for byte in UInt8.min...UInt8.max {
                var text = base
                text[position] = byte
                let key = text.withUnsafeBufferPointer { SessionKey(String(decoding: $0, as: UTF8.self)) }
                guard let nibble = digits.firstIndex(of: byte) else {
                    #expect(key == nil, "byte \(byte) at \(position)")
                    continue
                }
                text[position] = digits[nibble]
                let high = UInt64(String(decoding: text[..<16], as: UTF8.self), radix: 16)
                let low = UInt64(String(decoding: text[16...], as: UTF8.self), radix: 16)
                #expect(key?.high == high && key?.low == low, "byte \(byte) at \(position)")
            }
        }
    }
}
