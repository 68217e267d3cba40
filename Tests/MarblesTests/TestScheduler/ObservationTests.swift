import Marbles
import MarblesTesting
import Observation
import Testing

@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, visionOS 1.0, *)
@Observable final class Counter {
    var count = 0
}

@Suite("expect(observing:)")
struct ObservationTests {
    @available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, visionOS 1.0, *)
    @Test("records the value at subscription and at each change, once per instant; nothing after the unsubscription or the run")
    func observes() {
        let counter = Counter()
        let outliving = Counter()
        do {
            let scheduler = TestScheduler()
            scheduler.run {
                scheduler.expect(observing: { counter.count }, unsubscribe: "^----!").toBe("a-b--", values: ["a": 0, "b": 2])
                scheduler.expect(observing: { outliving.count }).toBe("a", values: ["a": 0])
                scheduler.schedule(after: .milliseconds(2)) {
                    counter.count = 1
                    counter.count = 2
                }
                scheduler.schedule(after: .milliseconds(6)) { counter.count = 3 }
            }
        }
        // The scheduler is gone, its subscriptions disposed: a change of a model it observed
        // (still tracked by Observation) reaches nothing.
        outliving.count = 4
        #expect(outliving.count == 4)
    }
}
