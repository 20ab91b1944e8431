import MicroHTTP
import Testing

@testable import ReMVVMServer

/// Whose address a request is counted under, and whether it came over TLS: forwarding headers are believed from
/// trusted proxies only, and of `X-Forwarded-For` only what the proxies appended.
@Suite("Client address")
struct ClientAddressTests {
    static let address = ClientAddress(trustedProxies: ["127.0.0.4", "10.1.0.0/16"])

    static func request(from peer: String, _ headers: HTTPHeaders = [:]) -> HTTPRequest {
        HTTPRequest(method: "POST", path: "/v1/sessions", headers: headers, clientAddress: peer)
    }

    @Test(
        arguments: [
            ("203.0.113.9", nil, "203.0.113.9"),  // No proxy: the peer.
            ("203.0.113.9", "198.51.100.1", "203.0.113.9"),  // An untrusted peer's header is ignored.
            ("127.0.0.4", nil, "127.0.0.4"),  // A proxy that forwards nothing: itself.
            ("127.0.0.4", "198.51.100.1", "198.51.100.1"),
            ("127.0.0.4", "6.6.6.6, 198.51.100.1", "198.51.100.1"),  // What the client wrote comes first: ignored.
            ("10.1.2.3", "198.51.100.1, 127.0.0.4", "198.51.100.1"),  // Two proxies, one by its network.
            ("10.2.0.1", "198.51.100.1", "10.2.0.1"),  // Outside the trusted network.
            ("127.0.0.4", "10.1.0.7, 127.0.0.4", "10.1.0.7"),  // Only proxies: the first.
        ] as [(String, String?, String)])
    func theClientIsTheNearestUntrustedHop(peer: String, forwardedFor: String?, client: String) {
        let headers: HTTPHeaders = forwardedFor.map { ["X-Forwarded-For": $0] } ?? [:]
        #expect(Self.address.of(Self.request(from: peer, headers)) == client)
    }

    @Test func tlsIsBelievedFromATrustedProxyOnly() {
        #expect(Self.address.isSecure(Self.request(from: "127.0.0.4", ["X-Forwarded-Proto": "https"])))
        #expect(Self.address.isSecure(Self.request(from: "10.1.9.9", ["X-Forwarded-Proto": "HTTPS"])))
        #expect(!Self.address.isSecure(Self.request(from: "127.0.0.4", ["X-Forwarded-Proto": "http"])))
        #expect(!Self.address.isSecure(Self.request(from: "127.0.0.4")))
        #expect(!Self.address.isSecure(Self.request(from: "127.0.0.5", ["X-Forwarded-Proto": "https"])))
    }
}
