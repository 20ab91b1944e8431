import HTTPTestClient

/// nginx in front of one server on loopback: a proxy to lose and start again (``TestNginx/restart()``) under a
/// client, as a restarted balancer is.
enum ProxyProcess {
    /// The nginx binary, if one is installed.
    static var binary: String? { TestNginx.binary }

    /// nginx on a free port in front of the server on `upstream`.
    static func start(upstream: UInt16) throws -> TestNginx {
        try TestNginx(locations: "location / { proxy_pass http://127.0.0.1:\(upstream); }")
    }
}
