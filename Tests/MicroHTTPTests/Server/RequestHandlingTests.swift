import HTTPTestClient
import MicroHTTP
import Testing

@Suite("Requests over real sockets")
struct RequestHandlingTests {
    /// Echoes what the transport parsed, one fact per line.
    private static let echo: @Sendable (HTTPRequest, Responder) -> Void = { request, responder in
        var lines = ["method=\(request.method)", "path=\(request.path)", "client=\(request.clientAddress)"]
        lines += request.query.map { "query \($0.name)=\($0.value)" }
        lines.append("x-token=\(request.headers["x-TOKEN"] ?? "-")")
        lines.append("body=\(String(decoding: request.body, as: UTF8.self))")
        responder.respond(.text(lines.joined(separator: "\n")))
    }

    @Test func getDecodesTheQueryInOrder() throws {
        try withServer(handler: Self.echo) { server in
            let client = try TestHTTPClient(port: server.port)
            let response = try client.request("GET", "/search?a=1&b=x+y&a=%C3%A9&flag&empty=")
            #expect(response.status == 200)
            let lines = response.text.split(separator: "\n").map(String.init)
            #expect(lines.contains("method=GET"))
            #expect(lines.contains("path=/search"))
            #expect(
                lines.filter { $0.hasPrefix("query ") } == [
                    "query a=1", "query b=x y", "query a=é", "query flag=", "query empty=",
                ])
        }
    }

    @Test func pathIsPercentDecodedButNeitherNormalisedNorPlusDecoded() throws {
        try withServer(handler: Self.echo) { server in
            let client = try TestHTTPClient(port: server.port)
            let lines = try client.request("GET", "/files/%2e%2e/a%20b%2Fc+d").text.split(separator: "\n")
            #expect(lines.contains("path=/files/../a b/c+d"))
            let cut = try client.request("GET", "/a%00b").text.split(separator: "\n")
            #expect(cut.contains("path=/a"))
            let invalid = try client.request("GET", "/%FF").text.split(separator: "\n")
            #expect(invalid.contains("path=/\u{FFFD}"))
        }
    }

    @Test func postDeliversTheBodyAndHeadersLookedUpInAnyCase() throws {
        try withServer(handler: Self.echo) { server in
            let client = try TestHTTPClient(port: server.port)
            let response = try client.request(
                "POST", "/submit", headers: [("X-Token", "secret")], body: Array("hello body".utf8))
            let lines = response.text.split(separator: "\n").map(String.init)
            #expect(lines.contains("method=POST"))
            #expect(lines.contains("x-token=secret"))
            #expect(lines.contains("body=hello body"))
            #expect(lines.contains("client=127.0.0.1"))
        }
    }

    /// Method, version and field names are read as the client spelled them, whether or not the reader knows the
    /// spelling ahead (it keeps common ones made once).
    @Test func methodVersionAndFieldNamesAreReadAsSent() throws {
        let handler: @Sendable (HTTPRequest, Responder) -> Void = { request, responder in
            let names = Array(request.headers).map(\.name).joined(separator: ",")
            responder.respond(.text("\(request.method) \(request.version) \(names)"))
        }
        try withServer(handler: handler) { server in
            let client = try TestHTTPClient(port: server.port)
            let fields = [
                ("Authorization", "a"), ("content-TYPE", "b"), ("Hosx", "c"), ("X-Long-Field-Name", "d"),
                ("If-Match", "e"), ("IF-MATCH", "f"), ("Accept-Encodin", "g"),
            ]
            for method in ["GET", "POST", "PATCH", "OPTIONS", "PROPFIND"] {
                let response = try client.request(method, "/x", headers: fields)
                #expect(response.status == 200)
                let sent = fields.map(\.0).joined(separator: ",")
                #expect(response.text.hasPrefix("\(method) HTTP/1.1 "), "\(response.text)")
                #expect(response.text.hasSuffix(sent), "\(response.text)")
            }
        }
    }

    @Test func keepAliveAnswersTwoRequestsOnOneConnection() throws {
        try withServer(handler: Self.echo) { server in
            let client = try TestHTTPClient(port: server.port)
            let first = try client.request("GET", "/one")
            let second = try client.request("POST", "/two", body: [0x41])
            #expect(first.status == 200 && second.status == 200)
            #expect(first.header("Connection")?.lowercased() != "close")
            #expect(second.header("Connection")?.lowercased() != "close")
            #expect(second.text.contains("path=/two"))
        }
    }

    @Test func headIsHandledLikeGetWithoutABody() throws {
        let methods = Shared<[String]>([])
        try withServer(handler: { request, responder in
            methods.update { $0.append(request.method) }
            responder.respond(.text("twelve bytes"))
        }) { server in
            let client = try TestHTTPClient(port: server.port)
            let head = try client.request("HEAD", "/thing")
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "12")
            #expect(head.body.isEmpty)
            // The connection is still in sync: the next response starts right after the head.
            #expect(try client.request("GET", "/thing").text == "twelve bytes")
            #expect(methods.value == ["HEAD", "GET"])
        }
    }

    @Test func responseHeadersAreSentInOrderWithDuplicates() throws {
        try withServer(handler: { _, responder in
            var headers: HTTPHeaders = ["Content-Type": "text/plain"]
            headers.add(name: "Set-Cookie", value: "a=1")
            headers.add(name: "Set-Cookie", value: "b=2")
            headers.add(name: "Content-Length", value: "999")  // Dropped: libmicrohttpd computes it.
            responder.respond(HTTPResponse(status: 201, headers: headers, body: .bytes(Array("ok".utf8))))
        }) { server in
            let response = try TestHTTPClient(port: server.port).request("GET", "/")
            #expect(response.status == 201)
            #expect(response.headerValues("set-cookie") == ["a=1", "b=2"])
            #expect(response.header("Content-Length") == "2")
            #expect(response.text == "ok")
        }
    }

    @Test func rejectedHeaderIsDroppedAndReported() throws {
        let reports = Shared<[String]>([])
        try withServer(
            { $0.diagnostics = { message in reports.update { $0.append(message) } } },
            handler: {
                _, responder in
                responder.respond(HTTPResponse(status: 200, headers: ["X-Bad": "a\r\nInjected: yes"]))
            }
        ) { server in
            let response = try TestHTTPClient(port: server.port).request("GET", "/")
            #expect(response.status == 200)
            #expect(response.header("Injected") == nil)
            #expect(reports.value.contains { $0.contains("X-Bad") })
        }
    }

    @Test func statusOutsideThreeDigitsBecomes500() throws {
        try withServer(handler: { _, responder in responder.respond(HTTPResponse(status: 42)) }) { server in
            let response = try TestHTTPClient(port: server.port).request("GET", "/")
            #expect(response.status == 500)
        }
    }
}
