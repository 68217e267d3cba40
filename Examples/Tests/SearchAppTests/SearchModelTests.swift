import MarbleCore
import MarblesTesting
import SearchApp
import Testing

/// The SwiftUI-style model, tested as it is: `@MainActor`, `@Observable`, `Task.sleep` inside.
@MainActor
@Suite("SearchModel (@MainActor, @Observable, Task.sleep)")
struct SearchModelTests {
    let api = SearchAPI { query in [query.uppercased()] }

    @Test("typing is debounced by 300 ms; each pause shows the results of the last query")
    func debouncesTyping() {
        let scheduler = TestScheduler(frame: .milliseconds(100))
        scheduler.run {
            let model = SearchModel(api: api)
            let results = scheduler.expect(observing: { model.results })
            let typing = scheduler.hot("-a-b------c---|", values: ["a": "sw", "b": "swift", "c": "rx"])
            _ = typing.subscribe(onNext: { model.queryChanged($0) })
            results.toBe("e-----x------y", values: ["e": [], "x": ["SWIFT"], "y": ["RX"]])
            scheduler.expect(subscriptions: typing.subscriptions).toBe("^-------------!")
        }
    }

    @Test("a query typed within 300 ms of the previous one cancels its search")
    func cancelsTheOlderSearch() {
        let scheduler = TestScheduler(frame: .milliseconds(100))
        scheduler.run {
            let searched = PublishSubject<String>()
            let recorded = scheduler.expect(searched)
            let model = SearchModel(
                api: SearchAPI { query in
                    searched.onNext(query)
                    return [query]
                })
            let typing = scheduler.hot("abc-------d|")
            _ = typing.subscribe(onNext: { model.queryChanged($0) })
            recorded.toBe("-----c-------d")
        }
    }

    @Test("the same timeline in 500 runs")
    func deterministic() {
        var timelines = Set<String>()
        for _ in 0..<500 {
            let scheduler = TestScheduler(frame: .milliseconds(100), reporter: MarbleFailure.Collector())
            let expectation = scheduler.run {
                let model = SearchModel(api: api)
                let results = scheduler.expect(observing: { model.results })
                _ = scheduler.hot("-a-b------c---|").subscribe(onNext: { model.queryChanged($0) })
                return results
            }
            timelines.insert(expectation.recorded.map { "\($0.value)@\($0.time)" }.joined(separator: " "))
        }
        #expect(timelines == ["next([])@0.0 seconds next([\"B\"])@0.6 seconds next([\"C\"])@1.3 seconds"])
    }
}
