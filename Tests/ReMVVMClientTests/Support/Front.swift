import Foundation
import HTTPTestClient

/// nginx in front of two nodes, as a deployment puts it (deploy/remvvm.conf.template): clients know its URL only,
/// and it picks the node for each request. Which node is the test's choice (``route(toSecond:)``), where the
/// deployment's is its hash ring's: a session's requests move to another node when the ring changes.
final class Front: Sendable {
    private let nginx: TestNginx

    /// The nginx binary, if one is installed.
    static var binary: String? { TestNginx.binary }

    /// Starts nginx on a free loopback port in front of the nodes on `first` and `second`, routing to `first`.
    init(first: UInt16, second: UInt16) throws {
        // Each request finds its node anew (a variable in proxy_pass: no upstream block, no keep-alive to the
        // nodes), as a hash ring does per request; the marker file beside the configuration picks the second.
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("front-\(UUID().uuidString)")
        nginx = try TestNginx(
            locations: """
                location / {
                    set $node 127.0.0.1:\(first);
                    if (-f \(marker.path)) { set $node 127.0.0.1:\(second); }
                    proxy_pass http://$node;
                }
                """)
        self.marker = marker
    }

    private let marker: URL

    /// nginx's URL.
    var url: URL { nginx.url }

    /// The access log: which requests nginx passed on, with their statuses.
    var accessLog: String { nginx.accessLog }

    /// Sends the requests from now on to the second node (`true`) or the first.
    func route(toSecond: Bool) throws {
        if toSecond {
            try Data().write(to: marker)
        } else if FileManager.default.fileExists(atPath: marker.path) {
            try FileManager.default.removeItem(at: marker)
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: marker)
    }
}
