import Testing

@testable import ReMVVMServer

/// Keeps `public/openapi.yaml` true: every route the router knows is documented, with the parts clients and
/// tools rely on. The statuses each end-to-end test observes are checked by ``withTestServer(_:configure:_:)``.
@Suite("OpenAPI description")
struct OpenAPIDescriptionTests {
    /// One request path per route of the router.
    static let samples: [(path: String, route: Route)] = [
        ("/healthz", .health), ("/metrics", .metrics), ("/v1/sessions", .sessions),
        ("/v1/sessions/abc", .session(id: nil)), ("/v1/sessions/abc/actions", .actions(id: nil)),
        ("/v1/sessions/abc/poll", .poll(id: nil)), ("/v1/sessions/abc/events", .events(id: nil)),
        ("/v1/nope", .unknownAPI), ("/index.html", .staticFile),
    ]

    /// The operations each route has: what the server answers other than 405. The switch is exhaustive, so a
    /// new route does not compile until it is listed here (and then in ``samples``).
    static func methods(of route: Route) -> [String] {
        switch route {
        case .health, .metrics, .poll, .events, .staticFile: ["get"]
        case .sessions, .actions: ["post"]
        case .session: ["get", "delete"]
        // Not a route: the answer for paths under /v1 that no route matches, a plain 404.
        case .unknownAPI: []
        // The app's own routes: documented by the app (the example's, announcements and /v1/me, are).
        case .app: []
        }
    }

    @Test func everyRouteOfTheRouterIsDocumentedWithItsMethods() throws {
        let description = try OpenAPIDescription.load()
        for (path, route) in Self.samples {
            #expect(Route(path: path) == route)
            guard let template = ExchangeLog.route(of: path) else { continue }
            for method in Self.methods(of: route) {
                #expect(description.hasOperation(method: method, path: template), "\(method) \(template)")
            }
            #expect(description.methods(of: template) == Set(Self.methods(of: route)), "\(template)")
        }
        #expect(description.hasOperation(method: "get", path: "/"))
    }

    @Test func everyOperationDocumentsItsSuccessAndItsProblems() throws {
        let description = try OpenAPIDescription.load()
        let required: [(method: String, path: String, statuses: [Int])] = [
            ("post", "/v1/sessions", [201, 401, 403, 429, 431, 503]),
            ("get", "/v1/sessions/{id}", [200, 304, 400, 401, 404, 431]),
            ("delete", "/v1/sessions/{id}", [204, 401, 403, 404, 431]),
            ("post", "/v1/sessions/{id}/actions", [200, 400, 401, 403, 404, 409, 412, 413, 415, 422, 431]),
            ("get", "/v1/sessions/{id}/poll", [200, 400, 401, 404, 429, 431]),
            ("get", "/v1/sessions/{id}/events", [200, 204, 400, 401, 429, 431]),
            ("get", "/healthz", [200]), ("get", "/metrics", [200, 404]),
            ("get", "/", [200]), ("get", "/{file}", [200, 404]),
        ]
        for (method, path, statuses) in required {
            for status in statuses {
                #expect(
                    description.documents(method: method, path: path, status: status), "\(method) \(path) \(status)")
            }
        }
    }

    @Test func theDescriptionDeclaresAuthHeadersProblemsAndLinks() throws {
        let description = try OpenAPIDescription.load()
        let text = description.lines.joined(separator: "\n")
        #expect(description.lines.first?.hasPrefix("openapi: 3.1") == true)
        for needle in [
            "scheme: bearer", "in: cookie", "name: remvvm_token",
            "Idempotency-Key", "If-Match", "If-None-Match", "Last-Event-ID", "Store-Version", "ETag", "Location",
            "Set-Cookie", "Retry-After", "WWW-Authenticate", "sendableTypes", "application/problem+json",
            "text/event-stream",
            "currentVersion", "actionType", "field", "index", "$response.body#/id", "$response.body#/token",
        ] {
            #expect(text.contains(needle), "openapi.yaml lacks \(needle)")
        }
        for operationID in ["readSession", "deleteSession", "dispatchActions", "pollSession", "streamEvents"] {
            #expect(text.contains("operationId: \(operationID)"), "\(operationID)")
        }
    }

    @Test func theLineReaderFindsOperationsAndStatuses() {
        let description = OpenAPIDescription(
            text: """
                openapi: 3.1.0
                paths:
                  /things/{id}:
                    parameters:
                      - name: id
                    get:
                      responses:
                        '200':
                          description: ok
                        "404":
                          $ref: '#/components/responses/NotFound'
                        4XX:
                          description: any client error
                components:
                  responses:
                    '500':
                      description: not an operation
                """)
        #expect(description.operations == ["/things/{id}": ["get": ["200", "404", "4XX"]]])
        #expect(description.documents(method: "GET", path: "/things/{id}", status: 418))
        #expect(!description.documents(method: "POST", path: "/things/{id}", status: 200))
        #expect(description.agrees(with: ObservedExchange(method: "POST", route: "/things/{id}", status: 405)))
        #expect(!description.agrees(with: ObservedExchange(method: "GET", route: "/things/{id}", status: 405)))
    }
}
