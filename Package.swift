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
        .library(name: "ExampleApp", targets: ["ExampleApp"]),
        .executable(name: "remvvm-bench", targets: ["remvvm-bench"]),
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
        // The example app (counter, login, quote, navigation) as a library.
        .target(name: "ExampleApp", dependencies: ["ReMVVM"], swiftSettings: strictSettings),
        .executableTarget(
            name: "remvvm-bench",
            dependencies: ["ReMVVM", "ExampleApp"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "ReMVVMTests", dependencies: ["ReMVVM", "ReMVVMTesting"], swiftSettings: strictSettings),
        .testTarget(name: "ExampleAppTests", dependencies: ["ExampleApp", "ReMVVMTesting"], swiftSettings: strictSettings),
        .testTarget(name: "MicroHTTPTests", dependencies: ["MicroHTTP"], swiftSettings: strictSettings),
    ]
)
