/// One screen a server-driven client shows, with the context it was opened with.
///
/// MVVMR's scenes pass context when they route; here the context travels as `params`.
public struct Screen: Codable, Hashable, Sendable {
    /// The screen's kind, which the client maps to a view (`profile`).
    public var name: String
    /// The context the screen was opened with.
    public var params: [String: String]

    /// A screen called `name` with optional context.
    public init(_ name: String, params: [String: String] = [:]) {
        self.name = name
        self.params = params
    }

    private enum CodingKeys: String, CodingKey { case name, params }

    /// Decodes a screen; `params` may be left out.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        params = try container.decodeIfPresent([String: String].self, forKey: .params) ?? [:]
    }
}
