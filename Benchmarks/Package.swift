// swift-tools-version: 6.1
import Foundation
import PackageDescription

// A path dependency's package identity is its folder's name, which is whatever the clone was
// called: read it instead of assuming one.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

// Benchmarks live apart from the library so `swift test` never builds them.
// Run: `swift run -c release MarblesBenchmarks` (or `make bench` from the root).
let package = Package(
    name: "MarblesBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // MarblesCombine off Apple platforms needs the OpenCombine trait.
        .package(path: "..", traits: ["OpenCombine"]),
        // The examples' app code: the races the schedule exploration benchmark looks for.
        .package(path: "../Examples"),
        // The peer for the Combine scheduler benchmark.
        .package(url: "https://github.com/pointfreeco/combine-schedulers", exact: "1.2.2"),
        // swift-collections' Heap: the bare-heap peer for the scheduler benchmark.
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        // Counts the allocations of the MarblesAllocations rows (preloaded: `make bench-allocs`).
        .package(url: "https://github.com/ordo-one/malloc-interposer", exact: "1.6.1"),
        // The peers of MarblesPeers: swift-clocks' TestClock and swift-concurrency-extras'
        // withMainSerialExecutor (`make bench-peers`).
        .package(url: "https://github.com/pointfreeco/swift-clocks", exact: "1.1.1"),
        .package(url: "https://github.com/pointfreeco/swift-concurrency-extras", exact: "1.4.3"),
    ],
    targets: [
        // One marble test run as a test runs it, for every executable below.
        .target(
            name: "BenchmarkSupport", dependencies: [.product(name: "MarbleCore", package: root), .product(name: "Marbles", package: root)],
            path: "Sources/BenchmarkSupport"),
        .executableTarget(
            name: "MarblesBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "MarbleCore", package: root), .product(name: "Marbles", package: root),
                // What a test executable links: the clock interposer (virtual system clocks) comes with it.
                .product(name: "MarblesTesting", package: root),
                .product(name: "MarbleRender", package: root), .product(name: "MarblesCombine", package: root),
                .product(name: "CombineSchedulers", package: "combine-schedulers"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "SearchApp", package: "Examples"),
            ],
            path: "Sources/MarblesBenchmarks"),
        .executableTarget(
            name: "MarblesAllocations",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "MarbleCore", package: root), .product(name: "Marbles", package: root),
                // Links the clock interposer, as every test executable does: runs then have virtual
                // clocks (Linux), not the read-back mode a plain executable gets.
                .product(name: "MarblesTesting", package: root),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ],
            path: "Sources/MarblesAllocations"),
        .executableTarget(
            name: "MarblesPeers",
            dependencies: [
                .product(name: "MarblesTesting", package: root),
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
            ],
            path: "Sources/MarblesPeers"),
    ]
)
