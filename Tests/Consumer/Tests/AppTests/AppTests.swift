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
}
