// swift-tools-version: 6.0
// Server code on the test's clock (issue 69): SwiftNIO's event loops, timers and sockets inside a
// `.virtualTime` test, nothing injected. `make server-check` builds and runs it (its first build
// fetches and compiles SwiftNIO, a few minutes on two cores).
import PackageDescription

let package = Package(
    name: "ServerConsumer",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Marbles", path: "../.."),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
    ],
    targets: [
        .testTarget(
            name: "ServerTests",
            dependencies: [
                .product(name: "MarblesTesting", package: "Marbles"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ])
    ]
)
