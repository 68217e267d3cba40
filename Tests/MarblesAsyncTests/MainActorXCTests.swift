import MarbleCore
import MarblesTesting
import XCTest

/// XCTest runs test methods on the main thread: main-actor work runs on the scheduler there too.
/// (swift-corelibs-xctest cannot list `@MainActor` methods, so the body asserts the isolation.)
final class MainActorXCTests: XCTestCase {
    func testMainActorModelRunsOnVirtualTimeOnTheMainThread() {
        MainActor.assumeIsolated { Self.mainActorModel() }
    }

    @MainActor private static func mainActorModel() {
        let scheduler = TestScheduler(frame: .milliseconds(100))
        scheduler.run {
            let model = DebouncingModel { query in [query.uppercased()] }
            let queries = scheduler.hot("-a-b------c---|", values: ["a": "sw", "b": "swift", "c": "rx"])
            let expectation = scheduler.expect(model.changes)
            let subscription = queries.subscribe(onNext: { model.queryChanged($0) })
            expectation.toBe("------x------y", values: ["x": ["SWIFT"], "y": ["RX"]])
            scheduler.schedule(after: .seconds(2)) { subscription.dispose() }
        }
    }
}
