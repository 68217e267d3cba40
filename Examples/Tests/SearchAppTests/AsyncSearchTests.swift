import MarbleCore
import MarblesTesting
import SearchApp
import Testing

/// swift-async-algorithms' `debounce` inside the model's own unstructured `Task`: the clock the
/// model already takes is the scheduler's, and the `Task` runs on the test scheduler.
@Suite("AsyncSearch (async-algorithms debounce + Task)")
struct AsyncSearchTests {
    static func scenario(_ scheduler: TestScheduler) -> MarbleExpectation<[String]> {
        let shown = PublishSubject<[String]>()
        let expectation = scheduler.expect(shown)
        let search = AsyncSearch(api: SearchAPI { [$0.uppercased()] }, clock: scheduler.clock)
        let typing = scheduler.hot("-a-b------c-------|", values: ["a": "sw", "b": "swift", "c": "rx"])
        search.start(queries: typing.values) { shown.onNext($0) }
        return expectation
    }

    @Test("each pause in typing searches the last query")
    func debounces() {
        let scheduler = TestScheduler(frame: .milliseconds(100))
        scheduler.run {
            Self.scenario(scheduler).toBe("------x------y", values: ["x": ["SWIFT"], "y": ["RX"]])
        }
    }

    @Test("the same timeline in 500 runs")
    func deterministic() {
        let result = timelines(Self.scenario)
        #expect(result.failures.isEmpty && result.timelines.count == 1, "\(result)")
    }

    /// The app's own initializer: debounce on `ContinuousClock`, whose `now` and sleeps are
    /// virtual inside a run (Linux).
    static func defaultClockScenario(_ scheduler: TestScheduler) -> MarbleExpectation<[String]> {
        let shown = PublishSubject<[String]>()
        let expectation = scheduler.expect(shown)
        let search = AsyncSearch(api: SearchAPI { [$0.uppercased()] })
        let typing = scheduler.hot("-a-b------c-------|", values: ["a": "sw", "b": "swift", "c": "rx"])
        search.start(queries: typing.values) { shown.onNext($0) }
        return expectation
    }

    @Test("on the default ContinuousClock, each pause in typing searches the last query")
    func debouncesOnDefaultClock() {
        let scheduler = TestScheduler(frame: .milliseconds(100))
        scheduler.run {
            Self.defaultClockScenario(scheduler).toBe("------x------y", values: ["x": ["SWIFT"], "y": ["RX"]])
        }
    }

    @Test("on the default ContinuousClock, the same timeline in 500 runs")
    func deterministicOnDefaultClock() {
        let result = timelines(Self.defaultClockScenario)
        #expect(result.failures.isEmpty && result.timelines.count == 1, "\(result)")
    }
}
