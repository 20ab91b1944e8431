import Testing

/// The end-to-end suites: a real server per test, real HTTP over loopback.
///
/// They run one test at a time: the timing assertions then measure the server rather than a two-core machine
/// crowded by a dozen servers, and the suite's load leaves room for other targets' timing-sensitive tests.
@Suite("End to end over HTTP", .serialized)
struct EndToEnd {}
