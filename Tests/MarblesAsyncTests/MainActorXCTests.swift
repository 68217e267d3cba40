import XCTest

/// XCTest runs test methods on the main thread: main-actor work runs on the scheduler there too.
/// (swift-corelibs-xctest cannot list `@MainActor` methods, so the body asserts the isolation.)
final class MainActorXCTests: XCTestCase {
    func testMainActorModelRunsOnVirtualTimeOnTheMainThread() {
        MainActor.assumeIsolated { MainActorTests.debouncingModelTest() }
    }
}
