import MicroHTTP

/// Who a request came from, and over what, as far as the server can believe it: the connection's peer, unless the
/// peer is one of the configured reverse proxies, whose `X-Forwarded-For` and `X-Forwarded-Proto` are then read.
/// From any other peer those headers are ignored, so a client cannot pick the address its budget is counted under.
struct ClientAddress: Sendable {
    /// The peers whose forwarding headers are believed (``ServerConfiguration/trustedProxies``).
    private let proxies: ProxyList

    /// Trusts `trustedProxies`: IPv4 addresses (`127.0.0.1`) or networks (`10.0.0.0/8`).
    init(trustedProxies: [String]) {
        proxies = ProxyList(trustedProxies)
    }

    /// Whether `address` is a trusted proxy.
    private func trusts(_ address: some StringProtocol) -> Bool {
        proxies.contains(address)
    }

    /// The client's address: the peer's, or, from a trusted proxy, the nearest address in `X-Forwarded-For` that
    /// is not itself a trusted proxy (each proxy appends the peer it saw, so the nearest untrusted one is the
    /// first a client could not have written). A list of trusted proxies only yields its first entry.
    func of(_ request: HTTPRequest) -> String {
        let peer = request.clientAddress
        guard trusts(peer), let forwarded = request.headers["x-forwarded-for"] else { return peer }
        let hops = forwarded.split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        guard let nearest = hops.last(where: { !trusts($0) }) ?? hops.first else { return peer }
        return nearest
    }

    /// Whether the request reached the server's front over TLS: `X-Forwarded-Proto: https` from a trusted proxy
    /// (the value the nearest proxy wrote, when there are several). The server itself speaks plain HTTP.
    func isSecure(_ request: HTTPRequest) -> Bool {
        guard trusts(request.clientAddress), let proto = request.headers["x-forwarded-proto"],
            let nearest = proto.split(separator: ",").last
        else { return false }
        return nearest.trimmingWhitespace().lowercased() == "https"
    }
}
