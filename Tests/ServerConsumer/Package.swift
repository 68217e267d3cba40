// swift-tools-version: 6.0
// Server code on the test's clock (issue 69): SwiftNIO's event loops, Vapor's in-memory tester,
// Hummingbird's router and live testers and async-http-client inside `.virtualTime` tests,
// nothing injected. `make server-check` builds and runs it (its first build compiles SwiftNIO,
// Vapor, Hummingbird and async-http-client: about 7 minutes on two cores).
import PackageDescription

let package = Package(
    name: "ServerConsumer",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Marbles", path: "../.."),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/vapor/vapor", exact: "4.122.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
    ],
    targets: [
        .testTarget(
            name: "ServerTests",
            dependencies: [
                .product(name: "MarblesTesting", package: "Marbles"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "VaporTesting", package: "vapor"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ])
    ]
)
