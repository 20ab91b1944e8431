// swift-tools-version: 6.1
// The README's counter as a package of its own, beside a checkout of ReMVVM Server in a folder named `remvvm`.
import PackageDescription

let package = Package(
    name: "counter",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Known by its folder's name, not the package's; from the repository, by the URL's last part:
        // .package(url: "https://github.com/…/remvvm-server.git", branch: "main") and `package: "remvvm-server"`.
        .package(path: "../remvvm")
    ],
    targets: [
        // Target names are unique across packages: this repository's own copies are `CounterShared` and
        // `CounterExample`, so the sources' `import CounterShared` reads `import CounterModel` here.
        // The actions and the view model, which an app's client imports too.
        .target(name: "CounterModel", dependencies: [.product(name: "ReMVVM", package: "remvvm")]),
        .executableTarget(
            name: "Counter",
            dependencies: [
                "CounterModel",
                .product(name: "ReMVVM", package: "remvvm"),
                .product(name: "ReMVVMServer", package: "remvvm"),
            ]
        ),
        .testTarget(
            name: "CounterTests",
            dependencies: ["Counter", "CounterModel", .product(name: "ReMVVMTesting", package: "remvvm")]
        ),
    ]
)
