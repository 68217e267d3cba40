import Foundation
import MarbleCore
import MarblesTesting
import Testing

/// The README's step-by-step model: each search sleeps 300 ms on the clock, then searches
/// (a newer search cancels the pending one).
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
private final class SearchModel: @unchecked Sendable {
    private let clock: TestClock
    private let lock = NSLock()
    private var task: Task<Void, Never>?
    private var found: [String] = []
    init(clock: TestClock) { self.clock = clock }
    var results: [String] { lock.withLock { found } }
    func search(_ query: String) {
        task?.cancel()
        task = Task { [clock] in
            guard (try? await clock.sleep(for: .milliseconds(300))) != nil else { return }
            lock.withLock { found = [query.uppercased()] }
        }
    }
}

/// The README's failure message, and the step-by-step style it used to show (its Swift blocks are
/// compiled as tests from the README itself: Tests/MarblesAsyncTests/Readme).
@Suite("README examples")
struct ReadmeExamplesTests {
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test func searchesAfterAPause() {
        let scheduler = TestScheduler()
        let model = SearchModel(clock: scheduler.clock)  // sleeps 300 ms on the clock, then searches
        scheduler.run {
            model.search("swift")  // its Task runs on the scheduler
            scheduler.advance(by: .milliseconds(299))
            #expect(model.results.isEmpty)
            scheduler.advance(by: .milliseconds(1))
            #expect(model.results == ["SWIFT"])
        }
    }

    @Test("breaking one character gives the README's failure message")
    func brokenExample() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        scheduler.run {
            let e1 = scheduler.hot("--a--^--b--c--|", values: ["a": 1, "b": 2, "c": 3])
            scheduler.expect(e1.map { $0 * 10 }).toBe("---b--c-|", values: ["b": 20, "c": 30])
        }
        #expect(
            reporter.failures.map(\.message) == [
                """
                marble diagrams differ at frame 8
                             3  6 8
                expected: ---b--c-|
                actual:   ---b--c--|
                                  ^
                  frame 8: expected completed, got nothing
                  frame 9: expected nothing, got completed
                """
            ])
    }

    @Test func innerObservables() {
        let scheduler = TestScheduler()
        scheduler.run {
            let outer = scheduler.hot("-a---b---|").map { value in scheduler.cold("--\(value)|") }
            scheduler.expect(outer).toBe("-x---y---|", values: ["x": scheduler.cold("--a|"), "y": scheduler.cold("--b|")])
        }
    }

    @Test func engine() throws {
        var printed: [Int] = []
        let bag = DisposeBag()
        Observable.from([1, 2, 3, 4])
            .filter { $0 % 2 == 0 }
            .map { $0 * 10 }
            .subscribe(onNext: { printed.append($0) })
            .disposed(by: bag)
        let total = try Observable.from([1, 2, 3]).reduce(0, accumulator: +)
            .blocking(timeout: .seconds(1)).first()
        #expect(printed == [20, 40])
        #expect(total == 6)
    }
}
