import CMicroHTTPD
import Glibc
import Synchronization

/// Turns an ``HTTPResponse`` into a libmicrohttpd response and queues it, inside the access handler.
enum ResponseSender {
    /// The block size libmicrohttpd is asked to use for streamed bodies.
    private static let streamBlockSize = 4 * 1024

    /// Queues `response` on `connection`; the result is what the access handler must return.
    static func send(_ response: HTTPResponse, on connection: ConnectionHandle, core: ServerCore) -> MHD_Result {
        var response = response
        if core.closesConnections, response.headers["connection"] == nil {
            // Draining: the client learns with this answer not to send another request on the connection. Not a
            // shared response any more (adding a header drops it), as a shared one carries its headers.
            response.headers.add(name: "Connection", value: "close")
        }
        core.willWrite(on: connection)
        if !(200...999).contains(response.status) {
            core.report("response status \(response.status) is not a final three-digit code; sent 500 instead")
            response = .problem(status: 500, title: "Internal Server Error", detail: "invalid response status")
        }
        if let prepared = response.prepared {
            // A shared response: built once with its headers, queued here with one more reference.
            guard let pointer = prepared.pointer(orMake: { makeBytesResponseWithHeaders(response, core: core) })
            else { return .NO }
            return MHD_queue_response(connection.pointer, UInt32(response.status), pointer)
        }
        guard let made = makeResponse(response, on: connection, core: core) else { return .NO }
        defer { MHD_destroy_response(made.pointer) }  // Drops our reference; a queued response keeps its own.
        addHeaders(made.headers, to: made.pointer, core: core)
        return MHD_queue_response(connection.pointer, UInt32(made.status), made.pointer)
    }

    /// The libmicrohttpd form of a response with an in-memory body, headers included, for sharing.
    private static func makeBytesResponseWithHeaders(_ response: HTTPResponse, core: ServerCore) -> OpaquePointer? {
        guard case .bytes(let bytes) = response.body, let pointer = bytesResponse(bytes, core: core) else {
            return nil
        }
        addHeaders(response.headers, to: pointer, core: core)
        return pointer
    }

    /// Adds every header but `Content-Length`, which libmicrohttpd computes.
    private static func addHeaders(_ headers: HTTPHeaders, to pointer: OpaquePointer, core: ServerCore) {
        headers.forEachField { name, value in
            guard !HTTPHeaders.namesMatch(name, "Content-Length") else { return }
            // Explicit `withCString`: the implicit String-to-pointer conversion copies small strings into a
            // fresh heap array, two allocations per header on every response.
            let added = name.withCString { name in
                value.withCString { value in MHD_add_response_header(pointer, name, value) }
            }
            if added == .NO {
                core.report("libmicrohttpd rejected response header \(name) (empty value or CR/LF?); dropped it")
            }
        }
    }

    private struct Made {
        let pointer: OpaquePointer
        let status: Int
        let headers: HTTPHeaders
    }

    private static func makeResponse(_ response: HTTPResponse, on connection: ConnectionHandle, core: ServerCore)
        -> Made?
    {
        switch response.body {
        case .bytes(let bytes):
            guard let pointer = bytesResponse(bytes, core: core) else { return nil }
            return Made(pointer: pointer, status: response.status, headers: response.headers)

        case .file(let path, _):
            guard let pointer = fileResponse(path: path, core: core) else {
                return makeResponse(.problem(status: 404, title: "Not Found"), on: connection, core: core)
            }
            return Made(pointer: pointer, status: response.status, headers: response.headers)

        case .stream(let stream):
            if core.streamBudget.isExhausted {
                // Never attached: the stream ends with its request.
                core.counters.streamsRefusedOverBudget.add(1, ordering: .relaxed)
                let refusal = HTTPResponse.streamBudgetExhausted(budget: core.streamBudget.limit)
                return makeResponse(refusal, on: connection, core: core)
            }
            core.uncork(connection)  // Each chunk goes out as it is written.
            guard stream.attach(to: connection, core: core) else {
                core.report("a ResponseStream was sent twice; answered 500")
                let failure = HTTPResponse.problem(
                    status: 500, title: "Internal Server Error", detail: "response stream already in use")
                return makeResponse(failure, on: connection, core: core)
            }
            let retained = Unmanaged.passRetained(stream)
            guard
                let pointer = MHD_create_response_from_callback(
                    CMHD_SIZE_UNKNOWN, streamBlockSize, mhdStreamReader, retained.toOpaque(), mhdStreamReleased)
            else {
                // libmicrohttpd never saw the closure: release it and end the stream here.
                retained.takeRetainedValue().responseReleased()
                core.report("libmicrohttpd could not create a streamed response; connection closed")
                return nil
            }
            return Made(pointer: pointer, status: response.status, headers: response.headers)
        }
    }

    /// A response with a copy of `bytes` as its body; nil (reported) if libmicrohttpd cannot make one.
    private static func bytesResponse(_ bytes: [UInt8], core: ServerCore) -> OpaquePointer? {
        let pointer = bytes.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer(
                buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
        }
        if pointer == nil {
            core.report("libmicrohttpd could not create a \(bytes.count)-byte response; connection closed")
        }
        return pointer
    }

    /// A response reading an open regular file with `sendfile`; `nil` (reported) if it cannot be opened.
    private static func fileResponse(path: String, core: ServerCore) -> OpaquePointer? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            core.report("cannot open \(path) (errno \(errno)); answered 404")
            return nil
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            core.report("\(path) is not a regular file; answered 404")
            return nil
        }
        // On success libmicrohttpd owns the descriptor and closes it with the response.
        guard let pointer = MHD_create_response_from_fd(Int(info.st_size), descriptor) else {
            close(descriptor)
            core.report("libmicrohttpd could not create a response for \(path); answered 404")
            return nil
        }
        return pointer
    }
}
