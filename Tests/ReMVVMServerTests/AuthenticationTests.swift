import ExampleApp
import HTTPTestClient
import Logging
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import Synchronization
import Testing

@testable import ReMVVMServer

/// The app's sign-in over real HTTP: an authenticator that reads `X-User: <subject>[:<role>]` (`expired` stands for
/// expired credentials, `banned` for a refused caller), sessions bound to the identity it names, and middleware
/// that sees it.
@Suite("The app's sign-in")
struct AuthenticationTests {
    /// The test's authenticator, as an app would write one.
    static let users = Authentication(challenge: "Bearer realm=\"test\"") { request in
        guard let user = request.header("x-user") else { throw AuthenticationError.missingCredentials() }
        switch user {
        case "expired": throw AuthenticationError.invalidCredentials("the credentials expired")
        case "banned": throw AuthenticationError.refused("this user may not sign in")
        case "down": throw ProviderDown()
        default:
            let parts = user.split(separator: ":", maxSplits: 1).map(String.init)
            return Identity(subject: parts[0], claims: parts.count > 1 ? ["role": parts[1]] : [:])
        }
    }

    struct ProviderDown: Error {}

    static func user(_ name: String) -> (String, String) { ("X-User", name) }

    @Test func missingCredentialsAre401WithAChallengeAndAProblem() async throws {
        try await withSignInServer(Self.users) { server in
            let client = try server.client()
            let response = try await client.request("POST", "/v1/sessions")
            #expect(response.status == 401)
            #expect(response.header("WWW-Authenticate") == "Bearer realm=\"test\"")
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(try response.json()["type"]?.stringValue == "/problems/missing-credentials")
            #expect(server.server.sessionCount == 0)
        }
    }

    @Test func invalidCredentialsAre401AndRefusedOnes403() async throws {
        try await withSignInServer(Self.users) { server in
            let client = try server.client()
            let expired = try await client.request("POST", "/v1/sessions", headers: [Self.user("expired")])
            #expect(expired.status == 401)
            #expect(expired.header("WWW-Authenticate") == "Bearer realm=\"test\", error=\"invalid_token\"")
            #expect(try expired.json()["detail"]?.stringValue == "the credentials expired")
            let banned = try await client.request("POST", "/v1/sessions", headers: [Self.user("banned")])
            #expect(banned.status == 403)
            #expect(try banned.json()["type"]?.stringValue == "/problems/forbidden")
            let down = try await client.request("POST", "/v1/sessions", headers: [Self.user("down")])
            #expect(down.status == 503)
            #expect(down.header("Retry-After") == "1")
            #expect(server.server.sessionCount == 0)
        }
    }

    @Test func aSessionOfOneIdentityIsRefusedToAnother() async throws {
        let every = Authentication(Self.users.authenticator, everyRequest: true)
        try await withSignInServer(every) { server in
            let client = try server.client()
            let alice = try await client.createSession(headers: [Self.user("alice")])
            #expect(
                try await client.dispatch(alice, ["type": "counter/increase"], headers: [Self.user("alice")]).status
                    == 200)
            let stolen = try await client.dispatch(alice, ["type": "counter/increase"], headers: [Self.user("bob")])
            #expect(stolen.status == 403)
            #expect(try stolen.json()["type"]?.stringValue == "/problems/identity-mismatch")
            #expect(try await client.read(alice, headers: [Self.user("bob")]).status == 403)
            #expect(try await client.poll(alice).status == 401)  // The session token alone is not enough now.
            let events = try await client.openEvents(alice, headers: [Self.user("bob")])
            #expect(events.head.status == 403)
            // Bob's dispatch changed nothing.
            let read = try await client.read(alice, query: "?views=counter", headers: [Self.user("alice")])
            #expect(read.status == 200)
            #expect(try read.json()["views"]?["counter"]?["counter"] == .string("1"))
        }
    }

    @Test func withoutEveryRequestTheSessionTokenAloneServes() async throws {
        try await withSignInServer(Self.users) { server in
            let client = try server.client()
            let alice = try await client.createSession(headers: [Self.user("alice")])
            #expect(try await client.dispatch(alice, ["type": "counter/increase"]).status == 200)
        }
    }

    @Test func middlewareAndEffectsSeeTheSessionsIdentity() async throws {
        try await withSignInServer(Self.users, definition: Self.adminsOnlyReset) { server in
            let client = try server.client()
            let admin = try await client.createSession(headers: [Self.user("ada:admin")])
            let user = try await client.createSession(headers: [Self.user("bob")])
            let set: JSONValue = ["type": "counter/set", "payload": ["value": 7]]
            let refused = try await client.dispatch(user, set)
            #expect(
                try refused.json()["results"]?[0]?["blocked"]?.stringValue == "only admins set the counter, not bob")
            let allowed = try await client.dispatch(admin, set, query: "?views=counter")
            #expect(try allowed.json()["results"]?[0]?["blocked"] == nil)
            #expect(try allowed.json()["views"]?["counter"]?["counter"] == .string("7"))
            // An effect reads the identity too: `counter/decrease` sets the counter to the subject's length.
            #expect(try await client.dispatch(admin, ["type": "counter/decrease"]).status == 200)
            let deadline = ContinuousClock.now + .seconds(5)
            var counter: JSONValue?
            repeat {
                counter = try await client.read(admin, query: "?views=counter").json()["views"]?["counter"]?["counter"]
            } while counter != .string("3") && ContinuousClock.now < deadline
            #expect(counter == .string("3"))
        }
    }

    @Test func withoutAnAuthenticatorSessionsStayAnonymous() async throws {
        try await withSignInServer(nil) { server in
            let client = try server.client()
            let session = try await client.createSession()
            #expect(try await client.dispatch(session, ["type": "counter/increase"]).status == 200)
        }
    }

    /// The authenticator awaits while the request parks: with one HTTP worker, another request is answered
    /// meanwhile.
    @Test func theAuthenticatorRunsOffTheHTTPWorker() async throws {
        let gate = AsyncGate()
        let waiting = Authentication { request in
            await gate.wait()
            return Identity(subject: "alice")
        }
        try await withSignInServer(waiting, threads: 1) { server in
            defer { gate.open() }
            let client = try server.client()
            let creating = try await client.start("POST", "/v1/sessions")
            try await gate.arrival()
            #expect(try await client.request("GET", "/healthz").status == 200)
            gate.open()
            #expect(try await creating.response().status == 201)
        }
    }

    /// The example's counter, where only an identity with the `admin` role may `counter/set`.
    static var adminsOnlyReset: StoreDefinition<AppState> {
        StoreDefinition(
            initialState: AppState(), reducer: ExampleApp.reducer,
            middleware: [AdminsOnlySet(), SubjectLength()] + ExampleApp.middleware, projections: ExampleApp.projections,
            clientActions: ExampleApp.clientActions)
    }

    /// On `counter/decrease`, an effect sets the counter to the length of the session's subject.
    struct SubjectLength: ActionMiddleware {
        typealias State = AppState

        func handle(_ action: CounterAction.Decrease, context: inout MiddlewareContext<AppState>) -> MiddlewareResult {
            context.run { effect in effect.dispatch(CounterAction.Set(value: effect.identity?.subject.count ?? -1)) }
            return .next(action)
        }
    }

    struct AdminsOnlySet: ActionMiddleware {
        typealias State = AppState

        func handle(_ action: CounterAction.Set, context: inout MiddlewareContext<AppState>) -> MiddlewareResult {
            guard context.identity?[claim: "role"] == "admin" else {
                return .block(reason: "only admins set the counter, not \(context.identity?.subject ?? "anyone")")
            }
            return .next(action)
        }
    }
}

/// Suspends callers until opened; tells the test when the first arrived.
final class AsyncGate: Sendable {
    private struct Waiting {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var arrivals: [CheckedContinuation<Void, Never>] = []
        var arrived = false
    }

    private let state = Mutex(Waiting())

    func wait() async {
        await withCheckedContinuation { continuation in
            let resume = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.arrived = true
                defer { state.arrivals = [] }
                if state.isOpen { return state.arrivals + [continuation] }
                state.waiters.append(continuation)
                return state.arrivals
            }
            for waiter in resume { waiter.resume() }
        }
    }

    /// Returns once a caller waits (or waited).
    func arrival() async throws {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.arrived { return true }
                state.arrivals.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// Starts a server with `authentication` and `routes`, runs `body`, stops it.
func withSignInServer(
    _ authentication: Authentication?,
    definition: StoreDefinition<AppState> = TestApp.definition(),
    routes: [AppRoute] = [],
    threads: Int = 2,
    configure: (inout ServerConfiguration) -> Void = { _ in },
    _ body: (TestServer) async throws -> Void
) async throws {
    var configuration = TestServer.configuration
    configuration.threads = threads
    configure(&configuration)
    let quiet = Logger(label: "remvvm.test") { _ in SwiftLogNoOpLogHandler() }
    var server = TestServer(
        server: StoreServer(
            definition, configuration: configuration, logger: quiet, authentication: authentication, routes: routes),
        log: ExchangeLog())
    // Authenticators and app routes run on the process's concurrency pool, which the suite's CPU-bound tests
    // (running beside these, on two cores) can hold for seconds.
    server.clientTimeout = .seconds(30)
    try server.server.start()
    do {
        try await body(server)
    } catch {
        try await server.stop()
        throw error
    }
    try await server.stop()
}
