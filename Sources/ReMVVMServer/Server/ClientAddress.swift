import MicroHTTP

/// Who a request came from, and over what, as far as the server can believe it: the connection's peer, unless the
/// peer is one of the configured reverse proxies, whose `X-Forwarded-For` and `X-Forwarded-Proto` are then read.
/// From any other peer those headers are ignored, so a client cannot pick the address its budget is counted under.
struct ClientAddress: Sendable {
    /// The peers whose forwarding headers are believed (``ServerConfiguration/trustedProxies``), as written.
    private let addresses: Set<String>
    /// The IPv4 networks among them (`10.0.0.0/8`): a proxy in a container network has no fixed address.
    private let networks: [(base: UInt32, mask: UInt32)]

    /// Trusts `trustedProxies`: addresses as the transport writes peers (`127.0.0.1`), or IPv4 networks.
    init(trustedProxies: [String]) {
        var addresses: Set<String> = []
        var networks: [(base: UInt32, mask: UInt32)] = []
        for entry in trustedProxies {
            let parts = entry.split(separator: "/", maxSplits: 1)
            if parts.count == 2, let base = Self.ipv4(parts[0]), let bits = Int(parts[1]), (0...32).contains(bits) {
                let mask: UInt32 = bits == 0 ? 0 : ~0 << (32 - bits)
                networks.append((base & mask, mask))
            } else {
                addresses.insert(entry)
            }
        }
        self.addresses = addresses
        self.networks = networks
    }

    /// Whether `address` is a trusted proxy.
    private func trusts(_ address: some StringProtocol) -> Bool {
        if addresses.contains(String(address)) { return true }
        guard !networks.isEmpty, let bits = Self.ipv4(address) else { return false }
        return networks.contains { bits & $0.mask == $0.base }
    }

    /// The bits of a dotted IPv4 address; nil for anything else.
    private static func ipv4(_ text: some StringProtocol) -> UInt32? {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4 else { return nil }
        var bits: UInt32 = 0
        for octet in octets {
            guard (1...3).contains(octet.utf8.count), let value = UInt8(octet) else { return nil }
            bits = bits << 8 | UInt32(value)
        }
        return bits
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
