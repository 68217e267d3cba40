// swift-tools-version: 6.0
// An app team's test target as it adopts Marbles: depends on MarblesTesting only, with iOS 16 as
// its floor. `make consumer-check` (Linux CI) builds it and reads what it fetches; the iOS job
// of .github/workflows/ci.yml runs it on a simulator.
import PackageDescription

let package = Package(
    name: "Consumer",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    dependencies: [.package(name: "Marbles", path: "../..")],
    targets: [
        .testTarget(name: "AppTests", dependencies: [.product(name: "MarblesTesting", package: "Marbles")])
    ]
)
