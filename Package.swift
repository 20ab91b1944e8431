// swift-tools-version: 6.1
import PackageDescription

/// Strict switches every target opts into (see STYLE.md).
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// The JSON engine and the store core also say which imports their interfaces show (`public import`).
let coreSettings = strictSettings + [.enableUpcomingFeature("InternalImportsByDefault")]

let package = Package(
    name: "remvvm-server",
    // The floors of what the core uses (Synchronization's Mutex and Atomic): what ReMVVMClient needs on Apple's
    // systems too, LiveView's Observation included (iOS 17, macOS 14).
    platforms: [.macOS(.v15), .iOS(.v18)],
    // What other packages use. The example app, the benchmark and the fuzz target are targets only: the
    // scripts build them by name (`swift build --product remvvm-bench`), as SwiftPM offers every executable.
    products: [
        .library(name: "ReMVVM", targets: ["ReMVVM"]),
        .library(name: "ReMVVMTesting", targets: ["ReMVVMTesting"]),
        .library(name: "ReMVVMServer", targets: ["ReMVVMServer"]),
        .library(name: "ReMVVMPersistence", targets: ["ReMVVMPersistence"]),
        .library(name: "ReMVVMSQLite", targets: ["ReMVVMSQLite"]),
        .library(name: "ReMVVMPostgres", targets: ["ReMVVMPostgres"]),
        .library(name: "ReMVVMClient", targets: ["ReMVVMClient"]),
        .executable(name: "remvvm-server", targets: ["remvvm-server"]),
        .executable(name: "counter-example", targets: ["CounterExample"]),
        .executable(name: "counter-client", targets: ["CounterClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // Only the example's sign-in (ExampleSignIn, so the executable) uses it: no library product depends on it.
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        // The JSON engine: parsing, encoding view models to bytes, decoding actions, RFC 6902 diff and apply.
        // Not a product, so no app imports it; its declarations are `public` rather than `package` because
        // cross-module optimization (the Dockerfile's and `make bench`'s builds) only inlines and specializes
        // public code across modules.
        .target(name: "ReMVVMJSON", swiftSettings: coreSettings),
        // The pure store core: no HTTP, no C. What only the server and persistence use (AnyProjectedStore, view
        // sets and snapshots, change waiting) is `@_spi(ReMVVMServer) public`: apps that `import ReMVVM` do not
        // see it, and the optimizer still can. As `package` it could not, and the in-process API dispatch
        // (remvvm-bench "api: dispatch over", built as the Dockerfile builds) went from ~2,100 to ~2,800 ns.
        .target(name: "ReMVVM", dependencies: ["ReMVVMJSON"], swiftSettings: coreSettings),
        // Helpers for app authors' tests (TestStore, TestClock, mock services); failures are Swift Testing issues.
        .target(name: "ReMVVMTesting", dependencies: ["ReMVVM"], swiftSettings: strictSettings),
        // libmicrohttpd, as Debian's libmicrohttpd-dev installs it.
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // The transport's small C helpers, all under names of its own: corking a socket, releasing many corked
        // sockets in one io_uring call, and the CPU sets of its worker threads (macros Swift cannot call).
        .target(name: "CTransport"),
        // The HTTP transport: the only module that touches libmicrohttpd's pointers.
        .target(
            name: "MicroHTTP",
            dependencies: ["CMicroHTTPD", "CTransport"],
            swiftSettings: strictSettings
        ),
        // OpenSSL's libcrypto (Debian's libssl-dev): SHA-256 for stored token hashes and request digests.
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // Durable sessions, whatever the database: the storage protocol, the group-commit writer, restore.
        .target(
            name: "ReMVVMPersistence",
            dependencies: ["ReMVVM", "CLibCrypto", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        // The embedded storage: one SQLite file through GRDB (Debian's libsqlite3-dev).
        .target(
            name: "ReMVVMSQLite",
            dependencies: [
                "ReMVVM",
                "ReMVVMPersistence",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // libpq, PostgreSQL's C client, as Debian's libpq-dev installs it.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // The shared storage for several nodes: PostgreSQL through libpq, with fenced session leases.
        .target(
            name: "ReMVVMPostgres",
            dependencies: ["ReMVVM", "ReMVVMPersistence", "CLibPQ", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        // The v1 API: sessions, dispatch, long-poll, SSE, static files, metrics.
        .target(
            name: "ReMVVMServer",
            dependencies: [
                "ReMVVM", "ReMVVMJSON", "MicroHTTP", "ReMVVMPersistence",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        // The app side: a session on a server over URLSession (FoundationNetworking on Linux), with typed actions
        // and views, an offline outbox and predictions. No UI framework, no server module.
        .target(name: "ReMVVMClient", dependencies: ["ReMVVM", "ReMVVMJSON"], swiftSettings: coreSettings),
        // The example app (counter, login, quote, navigation) as a library.
        .target(name: "ExampleApp", dependencies: ["ReMVVM"], swiftSettings: strictSettings),
        // The example's sign-in with signed JWTs (jwt-kit) and its own routes (announcements, /v1/me): a target of
        // its own, so only the executable and its tests build jwt-kit.
        .target(
            name: "ExampleSignIn",
            dependencies: [
                "ReMVVM", "ReMVVMServer", "ExampleApp",
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "remvvm-server",
            dependencies: [
                "ReMVVM", "ReMVVMServer", "MicroHTTP", "ExampleApp", "ReMVVMPersistence", "ReMVVMSQLite",
                "ReMVVMPostgres",
                "ExampleSignIn",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strictSettings,
            // Release builds link TCMalloc (Debian's libtcmalloc-minimal4), which takes over malloc and free for the
            // whole process: a change costs about 60 allocations, and glibc's thread arenas, grown a page at a time,
            // consolidate their free lists each time they grow. By its file name, so only the runtime package is
            // needed. Debug builds (the tests, and the sanitizers, whose runtimes bring their own malloc) keep the C
            // library's. The libraries stay allocator-neutral: an app's own server executable opts in the same way.
            linkerSettings: [
                .linkedLibrary(":libtcmalloc_minimal.so.4", .when(platforms: [.linux], configuration: .release))
            ]
        ),
        .executableTarget(
            name: "remvvm-bench",
            dependencies: [
                "ReMVVM", "ReMVVMJSON", "ExampleApp", "ReMVVMServer", "MicroHTTP",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The request-path fuzz target (scripts/fuzz) and what it needs: libFuzzer's driver entry point.
        .systemLibrary(name: "CLibFuzzer"),
        .target(
            name: "ReMVVMFuzzing",
            dependencies: [
                "ReMVVM", "ReMVVMJSON", "ReMVVMServer", "MicroHTTP", "ExampleApp",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // A libFuzzer binary when built with -DREMVVM_FUZZ (scripts/fuzz); otherwise it replays input files.
        .executableTarget(
            name: "remvvm-fuzz",
            dependencies: ["ReMVVMFuzzing", "CLibFuzzer"],
            swiftSettings: strictSettings
        ),
        // What the counter's server and clients share: its actions and its view model.
        .target(
            name: "CounterShared", dependencies: ["ReMVVM"], path: "Examples/CounterShared",
            swiftSettings: strictSettings
        ),
        // The README's counter app, a complete program (`swift run counter-example`); the README shows this file.
        .executableTarget(
            name: "CounterExample",
            dependencies: ["CounterShared", "ReMVVM", "ReMVVMServer"],
            path: "Examples/Counter",
            swiftSettings: strictSettings
        ),
        // `counter-client URL increase | set N | show | follow`: the counter from the command line.
        .executableTarget(
            name: "CounterClient",
            dependencies: ["CounterShared", "ReMVVMClient"],
            path: "Examples/CounterClient",
            swiftSettings: strictSettings
        ),
        .testTarget(name: "ReMVVMJSONTests", dependencies: ["ReMVVMJSON"], swiftSettings: strictSettings),
        .testTarget(
            name: "ReMVVMTests", dependencies: ["ReMVVM", "ReMVVMJSON", "ReMVVMTesting"], swiftSettings: strictSettings
        ),
        // The counter example: its TestStore test, the built binary driven over HTTP, the README's copy of it.
        .testTarget(
            name: "CounterExampleTests",
            dependencies: ["CounterExample", "CounterShared", "ReMVVM", "ReMVVMTesting", "HTTPTestClient"],
            swiftSettings: strictSettings
        ),
        // The client against the built remvvm-server as a subprocess over loopback; on several nodes, two of them
        // on the PostgreSQL of REMVVM_TEST_DATABASE_URL behind nginx.
        .testTarget(
            name: "ReMVVMClientTests",
            dependencies: [
                "ReMVVMClient", "ReMVVM", "ExampleApp", "PostgresTestSupport", "ReMVVMPostgres", "HTTPTestClient",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ExampleAppTests", dependencies: ["ExampleApp", "ReMVVMJSON", "ReMVVMTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReMVVMPersistenceTests",
            dependencies: [
                "ReMVVMPersistence", "ReMVVMSQLite", "ReMVVM", "ExampleApp",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Against a real PostgreSQL (REMVVM_TEST_DATABASE_URL, set by scripts/test); disabled without one. Also
        // two servers in one process on one database: sessions moving between nodes.
        .testTarget(
            name: "ReMVVMPostgresTests",
            dependencies: [
                "ReMVVMPostgres", "ReMVVMPersistence", "ReMVVM", "ExampleApp", "ReMVVMServer", "HTTPTestClient",
                "PostgresTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The built remvvm-server as a subprocess: crash, restart and damaged-storage tests.
        .testTarget(
            name: "ServerDurabilityTests",
            dependencies: [
                "HTTPTestClient", "ReMVVMPersistence", "ReMVVMSQLite", "ReMVVMPostgres", "PostgresTestSupport",
            ],
            swiftSettings: strictSettings
        ),
        // A blocking HTTP/1.1 client over POSIX sockets (with Server-Sent Events reading) for the HTTP tests.
        .target(name: "HTTPTestClient", path: "Tests/HTTPTestClient", swiftSettings: strictSettings),
        // A fresh database per test on the PostgreSQL of REMVVM_TEST_DATABASE_URL, for the tests that need one.
        .target(
            name: "PostgresTestSupport", dependencies: ["ReMVVMPostgres"], path: "Tests/PostgresTestSupport",
            swiftSettings: strictSettings),
        .testTarget(
            name: "MicroHTTPTests",
            dependencies: ["MicroHTTP", "HTTPTestClient", "CTransport", "CMicroHTTPD"],
            swiftSettings: strictSettings
        ),
        // The example's sign-in and routes over HTTP: JWTs, identities bound to sessions, the announcement route.
        .testTarget(
            name: "ExampleSignInTests",
            dependencies: [
                "ExampleSignIn", "ExampleApp", "ReMVVM", "ReMVVMServer", "ReMVVMSQLite", "HTTPTestClient",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strictSettings
        ),
        // Replays every crash the fuzzer found (Tests/FuzzCorpus/regressions) and the seed corpus.
        .testTarget(name: "FuzzRegressionTests", dependencies: ["ReMVVMFuzzing"], swiftSettings: strictSettings),
        .testTarget(
            name: "ReMVVMServerTests",
            dependencies: [
                "ReMVVMServer", "ExampleApp", "ReMVVM", "ReMVVMJSON", "ReMVVMTesting", "MicroHTTP", "HTTPTestClient",
                "ReMVVMPersistence",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
