import CMicroHTTPD
import Glibc

/// Starts a libmicrohttpd daemon from a configuration, and explains failures libmicrohttpd does not.
enum DaemonStarter {
    /// The daemon mode: worker threads with epoll, suspend/resume (which also turns on the inter-thread
    /// channel, `MHD_USE_ITC`, that wakes a worker when another thread resumes one of its connections).
    private static let flags =
        MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue

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

    /// Starts the daemon; `core` must stay retained (by the caller) until `MHD_stop_daemon` returned.
    /// With `pinsWorkers`, each new connection is announced to ``mhdConnectionNotified`` on its worker.
    static func start(
        _ configuration: HTTPServerConfiguration,
        address: sockaddr_in,
        core: UnsafeMutableRawPointer,
        pinsWorkers: Bool
    ) throws(HTTPServerError) -> OpaquePointer {
        var address = address
        let daemon: OpaquePointer? = withUnsafeMutablePointer(to: &address) { addressPointer in
            var options: [MHD_OptionItem] = [
                item(.SOCK_ADDR, pointer: UnsafeMutableRawPointer(addressPointer)),
                item(.CONNECTION_LIMIT, configuration.connectionLimit),
                item(.CONNECTION_MEMORY_LIMIT, configuration.connectionMemoryLimit),
                item(.CONNECTION_TIMEOUT, configuration.connectionTimeout),
                item(.LISTEN_BACKLOG_SIZE, configuration.listenBacklog),
            ]
            if configuration.threadPoolSize > 1 {
                options.append(item(.THREAD_POOL_SIZE, configuration.threadPoolSize))
            }
            if configuration.perClientConnectionLimit > 0 {
                options.append(item(.PER_IP_CONNECTION_LIMIT, configuration.perClientConnectionLimit))
            }
            options.append(item(.END, 0))
            return options.withUnsafeBufferPointer { buffer in
                cmhd_start_daemon(
                    flags, configuration.port, mhdAccessHandler, core, mhdRequestCompleted, core, mhdURISeen, core,
                    pinsWorkers ? mhdConnectionNotified : nil, core, buffer.baseAddress)
            }
        }
        guard let daemon else { throw diagnose(configuration, address: address) }
        return daemon
    }

    private static func item(_ option: MHD_OPTION, _ value: Int) -> MHD_OptionItem {
        MHD_OptionItem(option: option, value: value, ptr_value: nil)
    }

    private static func item(_ option: MHD_OPTION, pointer: UnsafeMutableRawPointer) -> MHD_OptionItem {
        MHD_OptionItem(option: option, value: 0, ptr_value: pointer)
    }

    /// libmicrohttpd only says "failed": bind a probe socket the same way to learn and report why.
    private static func diagnose(_ configuration: HTTPServerConfiguration, address: sockaddr_in) -> HTTPServerError {
        let endpoint = "\(configuration.host):\(configuration.port)"
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else {
            return HTTPServerError.startFailed.with("libmicrohttpd failed to start on \(endpoint)")
        }
        defer { close(probe) }
        var reuse: Int32 = 1
        _ = setsockopt(probe, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = address
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if bound == 0 {
            return HTTPServerError.startFailed.with(
                "libmicrohttpd failed to start on \(endpoint) (the address itself can be bound)")
        }
        let code = errno
        let reason = String(cString: strerror(code))
        if code == EADDRINUSE {
            return HTTPServerError.addressInUse.with("cannot listen on \(endpoint): \(reason)")
        }
        return HTTPServerError.bindFailed.with("cannot bind \(endpoint): \(reason)")
    }
}
