#if canImport(Glibc)
    import Glibc
#endif

/// The reverse proxies in front of the server, as IPv4 addresses (`127.0.0.1`) or networks (`10.0.0.0/8`, for a
/// proxy in a container network, which has no fixed address). Their connections are exempt from the per-address
/// connection limit, and only their `X-Forwarded-For` and `X-Forwarded-Proto` are believed.
public struct ProxyList: Sendable {
    /// Each entry as a network: an address is a network of one.
    private let networks: [(base: UInt32, mask: UInt32)]

    /// The entries that are not an IPv4 address or network; the server refuses to start with any.
    public let invalidEntries: [String]

    /// Parses `entries`, each an IPv4 address or network.
    public init(_ entries: [String]) {
        var networks: [(base: UInt32, mask: UInt32)] = []
        var invalid: [String] = []
        for entry in entries {
            let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            let bits = parts.count == 2 ? Int(parts[1]) : 32
            guard let address = Self.ipv4(String(parts[0])), let bits, (0...32).contains(bits) else {
                invalid.append(entry)
                continue
            }
            let mask: UInt32 = bits == 0 ? 0 : ~0 << (32 - bits)
            networks.append((address & mask, mask))
        }
        self.networks = networks
        invalidEntries = invalid
    }

    /// Whether the list is empty (no peer is a proxy).
    public var isEmpty: Bool { networks.isEmpty }

    /// Whether the dotted quad `address` is one of the proxies.
    public func contains(_ address: some StringProtocol) -> Bool {
        guard !networks.isEmpty, let bits = Self.ipv4(String(address)) else { return false }
        return contains(bits: bits)
    }

    /// Whether the address `sAddr` (a `sin_addr.s_addr`, in network order) is one of the proxies.
    func contains(sAddr: UInt32) -> Bool {
        contains(bits: UInt32(bigEndian: sAddr))
    }

    private func contains(bits: UInt32) -> Bool {
        networks.contains { bits & $0.mask == $0.base }
    }

    /// The address's bits in host order, or nil when it is not a dotted quad.
    private static func ipv4(_ address: String) -> UInt32? {
        var parsed = in_addr()
        return inet_pton(AF_INET, address, &parsed) == 1 ? UInt32(bigEndian: parsed.s_addr) : nil
    }
}
