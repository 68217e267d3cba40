import Foundation
import MarblesTesting
import Testing

// What an app's tests do with Marbles at the package's floor: marble tests of observables,
// hot and cold inputs, subscription logs, properties and schedules explored.
@Suite("An app's marble tests")
struct AppTests {
    @Test("map over a cold input")
    func exclaims() {
        let scheduler = TestScheduler()
        scheduler.run {
            let input = scheduler.cold("-a-b|")
            scheduler.expect(input.map { $0 + "!" }).toBe("-x-y|", values: ["x": "a!", "y": "b!"])
        }
    }

    @Test("debounce over a hot input, with its subscription log")
    func debounces() {
        let scheduler = TestScheduler()
        scheduler.run {
            let typing = scheduler.hot("-a-b----c---|")
            scheduler.expect(typing.debounce(.milliseconds(3), scheduler: scheduler)).toBe("------b----c|")
            scheduler.expect(subscriptions: typing.subscriptions).toBe("^-----------!")
        }
    }

    @Test("a property over generated diagrams")
    func mapKeepsTiming() {
        checkMarbles(count: 50) { scheduler, draw in
            let input = draw.cold("ab")
            scheduler.expect(input.map { $0.uppercased() }.map { $0.lowercased() }).toBeLike(input)
        }
    }

    /// Not part of the app's suite: `make consumer-check` runs it with CONSUMER_PORTABILITY_DEMO=1,
    /// once as it is (on Linux it passes, with the portability note) and once with
    /// MARBLES_PORTABLE=1 (the clocks of Apple platforms: it fails, as it would on a Mac).
    @Test(
        "a model that stamps with Date()",
        .enabled(if: ProcessInfo.processInfo.environment["CONSUMER_PORTABILITY_DEMO"] == "1"))
    func stampsWithDate() {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let scheduler = TestScheduler(frame: .seconds(1), startDate: start)
        scheduler.run {
            let taps = scheduler.cold("--t|")
            scheduler.expect(taps.map { _ in Date().timeIntervalSince(start) }).toBe("--a|", values: ["a": 2])
        }
    }

    /// Not part of the app's suite: `make consumer-check` runs it with CONSUMER_FAILURE_DEMO=1 and
    /// `--attachments-path`, and finds the failing diagram's SVG and spec there.
    @Test("a failing switch to the latest search", .enabled(if: ProcessInfo.processInfo.environment["CONSUMER_FAILURE_DEMO"] == "1"))
    func failingSearch() {
        let scheduler = TestScheduler()
        scheduler.run {
            let first = scheduler.cold("--r--s|")
            let second = scheduler.cold("-t|")
            let queries = scheduler.hot("-a-----b---|", values: ["a": first, "b": second])
            scheduler.expect(queries.flatMapLatest { $0 }).toBe("---r--s--t-|")
        }
    }

    /// The same, for the smallest failing example of a property.
    @Test("a property that fails", .enabled(if: ProcessInfo.processInfo.environment["CONSUMER_FAILURE_DEMO"] == "1"))
    func failingProperty() {
        checkMarbles(count: 50) { scheduler, draw in
            let input = draw.cold("ab")
            scheduler.expect(input.filter { $0 != "b" }).toBeLike(input)
        }
    }
}
