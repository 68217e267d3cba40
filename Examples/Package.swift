// swift-tools-version: 6.1
import Foundation
import PackageDescription

// A path dependency's package identity is its folder's name, which is whatever the clone was
// called: read it instead of assuming one.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

// Code as apps write it (no clock or scheduler injected for the test's sake), with marble tests.
// Run: `swift test` here, or `make examples` from the root.
let package = Package(
    name: "MarblesExamples",
    platforms: [.macOS(.v15), .iOS(.v18)],
    // The app code is a product too: the benchmarks measure exploring its races.
    products: [.library(name: "SearchApp", targets: ["SearchApp"])],
    dependencies: [
        // MarblesCombine off Apple platforms needs the OpenCombine trait.
        .package(path: "..", traits: ["OpenCombine"]),
        .package(url: "https://github.com/pointfreeco/combine-schedulers", from: "1.2.2"),
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    ],
    targets: [
        .target(
            name: "SearchApp",
            dependencies: [
                .product(name: "CombineSchedulers", package: "combine-schedulers"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "OpenCombineShim", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ]),
        .testTarget(
            name: "SearchAppTests",
            dependencies: [
                "SearchApp",
                .product(name: "MarblesTesting", package: root),
                .product(name: "MarblesCombine", package: root),
            ]),
    ]
)
