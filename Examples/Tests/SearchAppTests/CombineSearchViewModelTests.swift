import CombineSchedulers
import MarblesCombine
import MarblesTesting
import SearchApp
import Testing

/// (`MarbleScheduler`: our `TestScheduler`'s other name, since combine-schedulers, imported beside, has a `TestScheduler` too.)
/// The Combine view model takes `AnySchedulerOf<DispatchQueue>`: the test passes the marble
/// scheduler with DispatchQueue's time types, erased the same way the app erases `.main`.
@Suite("CombineSearchViewModel (AnySchedulerOf<DispatchQueue>)")
struct CombineSearchViewModelTests {
    static func scenario(_ scheduler: MarbleScheduler) -> MarbleExpectation<[String]> {
        let model = CombineSearchViewModel(
            search: { query in scheduler.coldPublisher("--r|", values: ["r": [query.uppercased()]]).eraseToAnyPublisher() },
            scheduler: scheduler.dispatchQueue.eraseToAnyScheduler())
        let typing = scheduler.hotPublisher("-a-b------b--c----|", values: ["a": "sw", "b": "swift", "c": "rx"])
        let forwarding = typing.subscribe(model.query)
        scheduler.schedule(after: .seconds(3)) { forwarding.cancel() }
        return scheduler.expect(model.results)
    }

    @Test("debounce, removeDuplicates and switchToLatest on virtual time")
    func searches() {
        let scheduler = MarbleScheduler(frame: .milliseconds(100))
        scheduler.run {
            Self.scenario(scheduler).toBe("--------x---------y|", values: ["x": ["SWIFT"], "y": ["RX"]])
        }
    }

    @Test("the same timeline in 500 runs")
    func deterministic() {
        let result = timelines(Self.scenario)
        #expect(result.failures.isEmpty && result.timelines.count == 1, "\(result)")
    }
}
