import Marbles
import MarblesTesting
import Observation
import Testing

@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, visionOS 1.0, *)
@Observable final class Counter {
    var count = 0
}

/// A model Observation does not track (no `@Observable`).
final class UntrackedCounter {
    var count = 0
}

@Suite("expect(observing:)")
struct ObservationTests {
    /// The failures of a run that observes `value` expecting `diagram`, after `change` at frame 2.
    @available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, visionOS 1.0, *)
    static func failures(observing value: @escaping () -> Int, _ diagram: String, change: @escaping () -> Void) -> [String] {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        scheduler.run {
            scheduler.expect(observing: value).toBe(diagram, values: ["a": 0, "b": 1])
            scheduler.schedule(after: .milliseconds(2)) { change() }
        }
        return reporter.failures.map(\.message)
    }

    @available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, visionOS 1.0, *)
    @Test("a closure that reads nothing Observation tracks fails saying so, not only with the bare diff")
    func untrackedModel() {
        let model = UntrackedCounter()
        let messages = Self.failures(observing: { model.count }, "a-b", change: { model.count = 1 })
        let message = messages.first ?? ""
        #expect(messages.count == 1)
        #expect(message.contains("expected next(b = 1), got nothing"), "\(message)")
        #expect(message.contains("recorded only the value at subscription"), "\(message)")
        #expect(message.contains("Is the model @Observable (with `import Observation`"), "\(message)")
    }

    @available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, visionOS 1.0, *)
    @Test("a tracked model's failure has no such note")
    func trackedModelFailure() {
        let counter = Counter()
        let messages = Self.failures(observing: { counter.count }, "a--b", change: { counter.count = 1 })
        #expect(messages.count == 1)
        #expect(messages.first?.contains("recorded only the value at subscription") == false)
    }

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
