// swift-tools-version: 6.0
import PackageDescription

// Benchmarks live apart from the library so `swift test` never builds them.
// Run: `swift run -c release MarblesBenchmarks` (or `make bench` from the root).
let package = Package(
    name: "MarblesBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(
            name: "MarblesBenchmarks",
            dependencies: [
                .product(name: "MarbleCore", package: "main"), .product(name: "Marbles", package: "main"),
                .product(name: "MarbleRender", package: "main"),
            ],
            path: "Sources/MarblesBenchmarks"),
    ]
)
