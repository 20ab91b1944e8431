import CMicroHTTPD
import Glibc

/// Binds the listening socket and starts the workers' libmicrohttpd daemons from a configuration, and explains
/// failures libmicrohttpd does not.
enum DaemonStarter {
    /// The daemon mode: libmicrohttpd's epoll loop run by the caller (no thread of its own: `MHD_run` on the
    /// worker), with suspend/resume. Without a thread of its own, libmicrohttpd sets up no inter-thread channel:
    /// a resume only marks the connection, and the worker resumes on its own thread before its next pass.
    private static let flags = MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue

    /// Checks the configuration and returns the IPv4 address to bind.
    static func validate(_ configuration: HTTPServerConfiguration) throws(HTTPServerError) -> sockaddr_in {
        func invalid(_ message: String) -> HTTPServerError {
            HTTPServerError.invalidConfiguration.with("invalid configuration: \(message)")
        }
        guard configuration.threadPoolSize >= 1, configuration.threadPoolSize <= 256 else {
            throw invalid("threadPoolSize must be 1...256, got \(configuration.threadPoolSize)")
        }
        guard configuration.connectionLimit >= 1, configuration.connectionLimit <= Int(UInt32.max) else {
            throw invalid("connectionLimit must be positive, got \(configuration.connectionLimit)")
        }
        guard configuration.perClientConnectionLimit >= 0, configuration.perClientConnectionLimit <= Int(UInt32.max)
        else {
            throw invalid(
                "perClientConnectionLimit must be 0 or positive, got \(configuration.perClientConnectionLimit)")
        }
        guard configuration.connectionMemoryLimit >= ConnectionMemory.smallestLimit else {
            throw invalid(
                "connectionMemoryLimit must be at least \(ConnectionMemory.smallestLimit) (an answer keeps "
                    + "\(ConnectionMemory.answerRoom) bytes of it), got \(configuration.connectionMemoryLimit)")
        }
        guard configuration.connectionTimeout >= 0, configuration.connectionTimeout <= Int(UInt32.max) else {
            throw invalid("connectionTimeout must be 0 or positive, got \(configuration.connectionTimeout)")
        }
        guard configuration.maxBodySize >= 0 else {
            throw invalid("maxBodySize must be 0 or positive, got \(configuration.maxBodySize)")
        }
        if let proxy = ProxyList(configuration.trustedProxies).invalidEntries.first {
            throw invalid(
                "trustedProxies must be IPv4 addresses or networks such as 10.0.0.2 or 10.0.0.0/8, got \"\(proxy)\"")
        }
        guard configuration.requestHeadTimeout >= .seconds(1), configuration.requestBodyTimeout >= .seconds(1) else {
            throw invalid("requestHeadTimeout and requestBodyTimeout must be at least 1 s")
        }
        guard configuration.streamBufferBudget >= 0 else {
            throw invalid("streamBufferBudget must be 0 or positive, got \(configuration.streamBufferBudget)")
        }
        guard configuration.listenBacklog >= 1, configuration.listenBacklog <= Int(Int32.max) else {
            throw invalid("listenBacklog must be positive, got \(configuration.listenBacklog)")
        }
        let host = configuration.host == "localhost" ? "127.0.0.1" : configuration.host
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = configuration.port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw invalid("host must be an IPv4 address such as 127.0.0.1 or 0.0.0.0, got \"\(configuration.host)\"")
        }
        return address
    }

    /// Binds and listens on `address`, for every worker's daemon to accept from; returns the socket and the
    /// bound port. The workers share the one socket (each daemon watches a duplicate of it): whichever worker is
    /// free and below its share of the connection limit accepts the next connection.
    static func listen(
        _ configuration: HTTPServerConfiguration, address: sockaddr_in
    ) throws(HTTPServerError) -> (socket: Int32, port: UInt16) {
        let endpoint = "\(configuration.host):\(configuration.port)"
        let listening = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listening >= 0 else {
            throw HTTPServerError.startFailed.with(
                "cannot open a socket for \(endpoint): \(String(cString: strerror(errno)))")
        }
        var reuse: Int32 = 1
        _ = setsockopt(listening, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = address
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listening, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(listening)
            let reason = String(cString: strerror(code))
            if code == EADDRINUSE {
                throw HTTPServerError.addressInUse.with("cannot listen on \(endpoint): \(reason)")
            }
            throw HTTPServerError.bindFailed.with("cannot bind \(endpoint): \(reason)")
        }
        guard Glibc.listen(listening, Int32(clamping: configuration.listenBacklog)) == 0 else {
            let code = errno
            close(listening)
            if code == EADDRINUSE {
                throw HTTPServerError.addressInUse.with(
                    "cannot listen on \(endpoint): \(String(cString: strerror(code)))")
            }
            throw HTTPServerError.startFailed.with("cannot listen on \(endpoint): \(String(cString: strerror(code)))")
        }
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &local) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listening, $0, &length) }
        }
        return (listening, named == 0 ? UInt16(bigEndian: local.sin_port) : configuration.port)
    }

    /// Worker `index`'s share of the connection limit: an equal part, the first workers taking the remainder.
    static func connectionLimit(_ configuration: HTTPServerConfiguration, worker index: Int, of count: Int) -> Int {
        configuration.connectionLimit / count + (index < configuration.connectionLimit % count ? 1 : 0)
    }

    /// Starts one worker's daemon in external-epoll mode on `listening` (which the daemon then owns and closes),
    /// with `closure` passed to every callback; the worker must outlive the daemon.
    static func start(
        _ configuration: HTTPServerConfiguration,
        listening: Int32,
        connectionLimit: Int,
        closure: UnsafeMutableRawPointer
    ) throws(HTTPServerError) -> OpaquePointer {
        let options: [MHD_OptionItem] = [
            item(.LISTEN_SOCKET, Int(listening)),
            item(.CONNECTION_LIMIT, connectionLimit),
            item(.CONNECTION_MEMORY_LIMIT, configuration.connectionMemoryLimit),
            item(.CONNECTION_TIMEOUT, configuration.connectionTimeout),
            item(.END, 0),
        ]
        let daemon = options.withUnsafeBufferPointer { buffer in
            cmhd_start_daemon(
                flags, configuration.port, mhdAccessHandler, closure, mhdRequestCompleted, closure, mhdURISeen,
                closure, mhdConnectionNotified, closure, buffer.baseAddress)
        }
        guard let daemon else {
            throw HTTPServerError.startFailed.with(
                "libmicrohttpd failed to start on \(configuration.host):\(configuration.port)")
        }
        return daemon
    }

    private static func item(_ option: MHD_OPTION, _ value: Int) -> MHD_OptionItem {
        MHD_OptionItem(option: option, value: value, ptr_value: nil)
    }

    private static func item(_ option: MHD_OPTION, pointer: UnsafeMutableRawPointer) -> MHD_OptionItem {
        MHD_OptionItem(option: option, value: 0, ptr_value: pointer)
    }
}
