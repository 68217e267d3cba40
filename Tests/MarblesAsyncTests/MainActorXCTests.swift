import XCTest

/// XCTest runs test methods on the main thread: main-actor work runs on the scheduler there too.
/// (swift-corelibs-xctest cannot list `@MainActor` methods, so the body asserts the isolation.)
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
final class MainActorXCTests: XCTestCase {
    func testMainActorModelRunsOnVirtualTimeOnTheMainThread() {
        MainActor.assumeIsolated { MainActorTests.debouncingModelTest() }
    }
}
