import MicroHTTP

extension StoreServer {
    /// Answers one request in-process, as libmicrohttpd's worker threads do, but with no transport: the whole
    /// request path (routing, credentials, parameters and headers, action decoding, the store) for the fuzzer
    /// (`remvvm-fuzz`) and its regression test. The server need not be started.
    package func handle(_ request: consuming HTTPRequest, responder: Responder) {
        api.handle(request, responder: responder)
    }

    /// Answers every parked long-poll now with its current cursor, as ``stop()`` does, so that an in-process
    /// caller never waits for a poll's deadline.
    package func answerParkedPolls() {
        api.timer.fireAll()
    }

    /// The folder static files are served from, with its symlinks resolved.
    package var publicDirectory: String { api.files.root }
}
