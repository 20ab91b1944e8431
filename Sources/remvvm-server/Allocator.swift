import Glibc

/// The allocator serving the process's `malloc`, named on the start line.
///
/// Release builds of this executable link TCMalloc (see Package.swift), which takes over `malloc` for every
/// library in the process; a build without it, or another allocator preloaded, shows here instead of only in
/// the figures.
enum Allocator {
    /// `tcmalloc`, `jemalloc` or `mimalloc` when one of them provides `malloc`, otherwise `libc` (the C library's,
    /// or a sanitizer's, which replaces it).
    static let name: String = {
        // Each of them exports a function of its own; looked up in the global scope (RTLD_DEFAULT).
        let markers = [("tc_version", "tcmalloc"), ("mallctl", "jemalloc"), ("mi_version", "mimalloc")]
        return markers.first { symbol, _ in dlsym(nil, symbol) != nil }?.1 ?? "libc"
    }()
}
