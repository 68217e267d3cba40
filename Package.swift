// swift-tools-version: 6.1
import PackageDescription

// Every target gets the same settings: Swift 6 language mode comes from the tools version;
// strict concurrency is complete by default there.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// The command-line programs parse their arguments with swift-argument-parser (the Tools trait).
let argumentParser = Target.Dependency.product(
    name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"]))
/// OpenCombine stands in for Combine off Apple platforms, with the OpenCombine trait.
let openCombine = TargetDependencyCondition.when(platforms: [.linux, .windows, .android], traits: ["OpenCombine"])

let package = Package(
    name: "Marbles",
    // `Duration` and `Clock` arrived with these releases. What needs more says so with
    // @available (task executors: macOS 15 / iOS 18; Observation: macOS 14 / iOS 17); README's
    // table lists each feature's floor.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "MarbleCore", targets: ["MarbleCore"]),
        .library(name: "Marbles", targets: ["Marbles"]),
        .library(name: "MarblesTesting", targets: ["MarblesTesting"]),
        .library(name: "MarbleSpec", targets: ["MarbleSpec"]),
        .library(name: "MarbleDrawing", targets: ["MarbleDrawing"]),
        .library(name: "MarbleRender", targets: ["MarbleRender"]),
        .library(name: "MarblesCombine", targets: ["MarblesCombine"]),
        .executable(name: "marblegen", targets: ["marblegen"]),
        .executable(name: "marbleplay", targets: ["marbleplay"]),
        .plugin(name: "MarblegenPlugin", targets: ["MarblegenPlugin"]),
        .plugin(name: "MarblegenVerifyPlugin", targets: ["MarblegenVerifyPlugin"]),
    ],
    // What a package that uses only the libraries must not fetch sits behind traits, off by
    // default: a dependent that names none resolves to this package alone.
    traits: [
        .trait(name: "Tools", description: "marblegen, marbleplay and the stress program (swift-argument-parser, FlyingFox)"),
        .trait(name: "OpenCombine", description: "MarblesCombine where Apple's Combine is missing (Linux): OpenCombine"),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // MarbleCore's one dependency: atomics on every OS the package supports (Synchronization's
        // need macOS 15 / iOS 18).
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        // Test-only: async marble tests of swift-async-algorithms operators.
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
        // Combine where Apple ships it, OpenCombine elsewhere (MarblesCombine only).
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        // Test-only: the name-clash test imports combine-schedulers beside ours.
        .package(url: "https://github.com/pointfreeco/combine-schedulers", from: "1.2.2"),
        // The playground's HTTP server (marbleplay only): small, no SwiftNIO, builds in seconds.
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
    ],
    targets: [
        // Engine: swift-atomics only.
        .target(
            name: "MarbleCore", dependencies: [.product(name: "Atomics", package: "swift-atomics")], path: "Sources/Core"),

        // Virtual time for async code, in one room (Sources/VirtualTime): the async runtime (drive
        // loop, executor, main-actor stand-in, clocks, sleep table, exploration hook-in) and the C
        // it needs. CRuntimeHooks: the Swift runtime's enqueue hooks and the per-thread route.
        // CClockInterposer: this executable's libc and libdispatch entry points that a run must see
        // (clocks, Dispatch submissions and timers, run-loop timers, sleeps, semaphore, group and
        // condition waits; Linux), linked only into test executables, through MarblesTesting.
        .target(
            name: "CRuntimeHooks", path: "Sources/VirtualTime/RuntimeHooks",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(
            name: "CClockInterposer", dependencies: ["CRuntimeHooks"], path: "Sources/VirtualTime/ClockInterposer",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(
            name: "MarblesRuntime",
            dependencies: ["MarbleCore", "CRuntimeHooks", .product(name: "Atomics", package: "swift-atomics")],
            path: "Sources/VirtualTime/Runtime"),

        // Marble language, TestScheduler, recordings and comparison; no test-framework import.
        .target(name: "Marbles", dependencies: ["MarbleCore", "MarblesRuntime", .product(name: "Atomics", package: "swift-atomics")]),

        // Assertions reported through Swift Testing or XCTest; links the clock interposer into
        // the test executables that use it.
        .target(name: "MarblesTesting", dependencies: ["Marbles", "MarbleSpec", "MarbleDrawing", "CClockInterposer"]),

        // Marble tests for Combine publishers: TestScheduler as a Combine scheduler, test publishers, bridges.
        .target(
            name: "MarblesCombine",
            dependencies: [
                "Marbles",
                .product(name: "OpenCombine", package: "OpenCombine", condition: openCombine),
                // DispatchQueue, RunLoop and OperationQueue as schedulers, with their time types.
                .product(name: "OpenCombineDispatch", package: "OpenCombine", condition: openCombine),
                .product(name: "OpenCombineFoundation", package: "OpenCombine", condition: openCombine),
            ]),

        // The diagram spec format: parse, write, operator registry, runner, diagram model. No Cairo.
        .target(name: "MarbleSpec", dependencies: ["MarbleCore", "Marbles"]),

        // Drawing without Cairo: layout, display list, themes, the SVG writer and the default
        // font's widths as data. What MarblesTesting draws failing tests with.
        .target(name: "MarbleDrawing", dependencies: ["MarbleCore", "Marbles", "MarbleSpec"]),

        // Rendering through Cairo: PNG, PDF and marblegen's SVG.
        .systemLibrary(
            name: "CCairo", pkgConfig: "cairo",
            providers: [.apt(["libcairo2-dev", "libpango1.0-dev"]), .brew(["cairo", "pango"])]),
        .target(name: "MarbleRender", dependencies: ["MarbleCore", "Marbles", "MarbleSpec", "MarbleDrawing", "CCairo"]),

        // The CLI's commands, exit codes and file I/O, as a library tested without a process.
        .target(
            name: "MarblegenCommands", dependencies: ["MarbleRender", "MarbleSpec", .product(name: "Atomics", package: "swift-atomics")]),
        // The CLI: argument parsing over MarblegenCommands.
        .executableTarget(
            name: "marblegen",
            dependencies: ["MarblegenCommands", argumentParser]),

        // The live playground (`marbleplay`): server logic in a library so tests can run it in process.
        .target(
            name: "MarblePlayground",
            dependencies: [
                "MarblegenCommands", .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "FlyingFox", package: "FlyingFox", condition: .when(traits: ["Tools"])),
            ],
            // The page and the gallery's specs are data: bundled beside marbleplay.
            resources: [.copy("Resources/playground.html"), .copy("Resources/gallery")]),
        .executableTarget(
            name: "marbleplay",
            dependencies: ["MarblePlayground", argumentParser]),

        // The stress program (`make stress`): thread-crossing operators, grammar checked by atomics.
        // `swift package marblegen …` for users who depend on Marbles.
        .plugin(
            name: "MarblegenPlugin",
            capability: .command(
                intent: .custom(verb: "marblegen", description: "Render, check or verify marble diagram specs with marblegen"),
                permissions: [.writeToPackageDirectory(reason: "marblegen render writes PNG/SVG/PDF files beside the specs")]),
            dependencies: ["marblegen"]),
        // verify only reads: a plugin of its own, which asks for no permission.
        .plugin(
            name: "MarblegenVerifyPlugin",
            capability: .command(
                intent: .custom(verb: "marblegen-verify", description: "Verify the expected: lines of marble diagram specs (reads only)")),
            dependencies: ["marblegen"]),

        .executableTarget(
            name: "MarblesStress",
            dependencies: ["MarbleCore", .product(name: "Atomics", package: "swift-atomics"), argumentParser]),

        // Tests, one target per module, and helpers they share.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(
            name: "MarbleCoreTests",
            dependencies: ["MarbleCore", "Marbles", "MarblesTesting", "TestSupport", .product(name: "Atomics", package: "swift-atomics")]),
        .testTarget(
            name: "MarblesTests", dependencies: ["Marbles", "MarblesTesting", "TestSupport"]),
        .testTarget(
            name: "MarblesTestingTests", dependencies: ["MarblesTesting"]),
        .testTarget(
            name: "MarblesAsyncTests",
            dependencies: ["MarblesTesting", "MarblesRuntime", .product(name: "AsyncAlgorithms", package: "swift-async-algorithms")]),
        .testTarget(
            name: "MarbleSpecTests", dependencies: ["MarbleSpec", "MarblesTesting", "TestSupport"]),
        .testTarget(
            name: "MarblesCombineTests", dependencies: ["MarblesCombine", "MarblesTesting"]),
        // Imports Testing, XCTest and Foundation beside ours: no public name may clash.
        .testTarget(name: "NameClashTests", dependencies: ["MarblesTesting", "MarbleRender"]),
        // Imports Observation, Combine (OpenCombine) and combine-schedulers beside ours.
        .testTarget(
            name: "NameClashCombineTests",
            dependencies: ["MarblesTesting", "MarblesCombine", .product(name: "CombineSchedulers", package: "combine-schedulers")]),
        .testTarget(name: "MarblePlaygroundTests", dependencies: ["MarblePlayground", "TestSupport"]),
        .testTarget(
            name: "MarbleRenderTests", dependencies: ["MarbleRender", "MarblesTesting", "TestSupport"]),
        .testTarget(
            name: "MarblegenCommandsTests", dependencies: ["MarblegenCommands", "MarblesTesting", "TestSupport"]),
    ]
)

// One place for every Swift target's settings.
let cTargets: Set = ["CRuntimeHooks", "CClockInterposer"]
for target in package.targets where target.type != .system && target.type != .plugin && !cTargets.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + strict
}

// The sanitizer runs in CI (make test-tsan, test-asan) run only the engine's and the async
// harness's tests: MARBLES_SANITIZER_TESTS=1 builds those two test targets and what they need.
if Context.environment["MARBLES_SANITIZER_TESTS"] != nil {
    let sanitized: Set = ["MarbleCoreTests", "MarblesAsyncTests"]
    package.targets.removeAll { $0.type == .test && !sanitized.contains($0.name) }
}
