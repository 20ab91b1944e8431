// swift-tools-version: 6.1
import PackageDescription

/// Strict switches every target opts into (see STYLE.md).
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "remvvm-server",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ReMVVM", targets: ["ReMVVM"]),
        .library(name: "ReMVVMTesting", targets: ["ReMVVMTesting"]),
        .library(name: "ReMVVMServer", targets: ["ReMVVMServer"]),
        .library(name: "ExampleApp", targets: ["ExampleApp"]),
        .executable(name: "remvvm-server", targets: ["remvvm-server"]),
        .executable(name: "remvvm-bench", targets: ["remvvm-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        // The pure store core: no HTTP, no C.
        .target(name: "ReMVVM", swiftSettings: strictSettings),
        // Helpers for app authors' tests (TestStore, mock services).
        .target(name: "ReMVVMTesting", dependencies: ["ReMVVM"], swiftSettings: strictSettings),
        // libmicrohttpd, as Debian's libmicrohttpd-dev installs it.
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // The HTTP transport: the only module that touches libmicrohttpd's pointers.
        .target(name: "MicroHTTP", dependencies: ["CMicroHTTPD"], swiftSettings: strictSettings),
        // The v1 API: sessions, dispatch, long-poll, SSE, static files, metrics.
        .target(
            name: "ReMVVMServer",
            dependencies: [
                "ReMVVM", "MicroHTTP",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The example app (counter, login, quote, navigation) as a library.
        .target(name: "ExampleApp", dependencies: ["ReMVVM"], swiftSettings: strictSettings),
        .executableTarget(
            name: "remvvm-server",
            dependencies: [
                "ReMVVM", "ReMVVMServer", "ExampleApp",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "remvvm-bench",
            dependencies: ["ReMVVM", "ExampleApp"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "ReMVVMTests", dependencies: ["ReMVVM", "ReMVVMTesting"], swiftSettings: strictSettings),
        .testTarget(name: "ExampleAppTests", dependencies: ["ExampleApp", "ReMVVMTesting"], swiftSettings: strictSettings),
        .testTarget(name: "MicroHTTPTests", dependencies: ["MicroHTTP"], swiftSettings: strictSettings),
        .testTarget(
            name: "ReMVVMServerTests",
            dependencies: ["ReMVVMServer", "ExampleApp"],
            swiftSettings: strictSettings
        ),
    ]
)
