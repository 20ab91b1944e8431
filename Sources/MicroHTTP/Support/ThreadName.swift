import Glibc

/// Names the transport's own threads (`remvvm-http-N`, `remvvm-watch`), so that `top -H`, `perf` and
/// `/proc/<pid>/task/*/comm` tell them apart from each other and the Swift runtime's pool (a thread started with `pthread_create`
/// otherwise keeps the name of the thread that started it).
///
/// It writes `/proc/thread-self/comm`, as `pthread_setname_np` does, because the C library's call is a GNU
/// extension the Swift module for it does not import. A name that cannot be set is left as it was.
enum ThreadName {
    /// Names the calling thread; at most 15 bytes are kept (the kernel's limit).
    static func set(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}
