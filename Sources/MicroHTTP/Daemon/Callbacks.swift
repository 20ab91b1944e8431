import CMicroHTTPD
import Glibc

// libmicrohttpd's callbacks. They are non-isolated free functions (C function pointers capture nothing) that
// recover their Swift objects from the `void *` closures with `Unmanaged` and hand over at once.

/// The access handler (`MHD_AccessHandlerCallback`): called for the request head, each body chunk, the end of
/// the body, and again after every resume.
func mhdAccessHandler(
    _ closure: UnsafeMutableRawPointer?,
    _ connection: OpaquePointer?,
    _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?,
    _ version: UnsafePointer<CChar>?,
    _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let closure, let connection, let uploadDataSize, let requestContext else { return .NO }
    let worker = Unmanaged<WorkerLoop>.fromOpaque(closure).takeUnretainedValue()
    let core = worker.core
    let handle = ConnectionHandle(pointer: connection, worker: worker)
    if requestContext.pointee == DirectAnswer.mark { return .NO }
    guard let existing = requestContext.pointee else {
        // First call, head only: set up the context. Answering here would cost keep-alive (libmicrohttpd then
        // adds `Connection: close`), so only an oversized declared body is answered right away.
        let responder = Responder(core: core)
        requestContext.pointee = Unmanaged.passRetained(responder).toOpaque()
        return core.beginRequest(responder, on: handle)
    }
    let responder = Unmanaged<Responder>.fromOpaque(existing).takeUnretainedValue()
    let size = uploadDataSize.pointee
    if size > 0 {
        uploadDataSize.pointee = 0
        guard let uploadData else { return .YES }
        return responder.receive(UnsafeRawBufferPointer(start: uploadData, count: size)) ? .YES : .NO
    }
    return core.continueRequest(responder, on: handle, url: url, method: method, version: version)
}

/// The URI callback (`MHD_OPTION_URI_LOG_CALLBACK`), called with each request line before its header fields are
/// read. Its result is the request's first context: `nil`, or ``DirectAnswer/mark`` for a URL too long, or with
/// too many query arguments, to leave the connection's memory room for the rest, which is answered here.
func mhdURISeen(
    _ closure: UnsafeMutableRawPointer?,
    _ uri: UnsafePointer<CChar>?,
    _ connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    guard let closure, let uri, let connection else { return nil }
    let worker = Unmanaged<WorkerLoop>.fromOpaque(closure).takeUnretainedValue()
    worker.requestLineSeen(connection)
    return worker.core.screenURL(URLShape(uri), on: ConnectionHandle(pointer: connection, worker: worker))
}

/// The request-completed callback (`MHD_OPTION_NOTIFY_COMPLETED`): the one place the transport's reference to a
/// request's responder is released.
func mhdRequestCompleted(
    _ closure: UnsafeMutableRawPointer?,
    _ connection: OpaquePointer?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    _ reason: MHD_RequestTerminationCode
) {
    guard let closure, let requestContext, let existing = requestContext.pointee else { return }
    requestContext.pointee = nil
    guard existing != DirectAnswer.mark else { return }
    let worker = Unmanaged<WorkerLoop>.fromOpaque(closure).takeUnretainedValue()
    if let connection { worker.requestCompleted(connection) }
    let core = worker.core
    core.endRequest(Unmanaged<Responder>.fromOpaque(existing).takeRetainedValue())
}

/// The connection callback (`MHD_OPTION_NOTIFY_CONNECTION`), on the worker: a connection opened counts against its
/// client's limit and joins its worker's open connections, its ``ConnectionRecord`` kept (retained) in the socket
/// context; one closing leaves them and its worker's held answers, and the record is released.
func mhdConnectionNotified(
    _ closure: UnsafeMutableRawPointer?,
    _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    _ code: MHD_ConnectionNotificationCode
) {
    guard let closure, let connection, let socketContext else { return }
    let worker = Unmanaged<WorkerLoop>.fromOpaque(closure).takeUnretainedValue()
    switch code {
    case .CONNECTION_NOTIFY_STARTED:
        let client = worker.core.connectionOpened(ConnectionHandle(pointer: connection, worker: worker))
        let record = worker.connectionOpened(connection, countedClient: client)
        socketContext.pointee = Unmanaged.passRetained(record).toOpaque()
    case .CONNECTION_NOTIFY_CLOSED:
        worker.connectionClosing(connection)
        worker.forgetHeld(socket: cmhd_connection_socket(connection))
        if let stored = socketContext.pointee {
            socketContext.pointee = nil
            let record = Unmanaged<ConnectionRecord>.fromOpaque(stored).takeRetainedValue()
            if let client = record.countedClient { worker.core.connectionClosed(client: client) }
        }
    default:
        break
    }
}

/// The content reader of a streamed response (`MHD_ContentReaderCallback`).
func mhdStreamReader(
    _ closure: UnsafeMutableRawPointer?,
    _ position: UInt64,
    _ buffer: UnsafeMutablePointer<CChar>?,
    _ capacity: Int
) -> Int {
    guard let closure, let buffer else { return CMHD_CONTENT_READER_END_WITH_ERROR }
    let stream = Unmanaged<ResponseStream>.fromOpaque(closure).takeUnretainedValue()
    return stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity))
}

/// The free callback of a streamed response (`MHD_ContentReaderFreeCallback`): releases the stream's reference.
func mhdStreamReleased(_ closure: UnsafeMutableRawPointer?) {
    guard let closure else { return }
    Unmanaged<ResponseStream>.fromOpaque(closure).takeRetainedValue().responseReleased()
}
