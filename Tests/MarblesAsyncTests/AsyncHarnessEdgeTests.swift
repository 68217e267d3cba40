import MarbleCore
import MarblesTesting
import Testing

/// A sequence that breaks the iterator contract: after returning nil it produces (or throws) again.
struct PastEndSequence: AsyncSequence, Sendable {
    let throwsPastEnd: Bool

    struct Iterator: AsyncIteratorProtocol {
        let throwsPastEnd: Bool
        var calls = 0
        mutating func next() async throws -> String? {
            calls += 1
            switch calls {
            case 1: return "a"
            case 2: return nil
            default:
                if throwsPastEnd { throw MarbleError() }
                return "zombie"
            }
        }
    }

    func makeAsyncIterator() -> Iterator { Iterator(throwsPastEnd: throwsPastEnd) }
}

@Suite("The async harness at a cancellation and past the end")
struct AsyncHarnessEdgeTests {
    @Test("values and the end delivered at the cancel's instant are recorded, from inputs made before or after the expectation")
    func cancelKeepsTheSameInstant() {
        let s = TestScheduler()
        s.run {
            // The input is created after the expectation's `!` was scheduled …
            let late = s.expect(emitting: String.self, unsubscribe: "---!") { emit in
                try await s.clock.sleep(for: .milliseconds(1))
                emit("a")
                try await s.clock.sleep(for: .milliseconds(2))
                emit("b")
            }
            late.toBe("-a-(b|)")
            // … or before it.
            let input = s.hot("-a-b-c|")
            s.expect(input.values, unsubscribe: "---!").toBe("-a-b")
            s.expect(s.cold("-a-|").values, unsubscribe: "---!").toBe("-a-|")
        }
    }

    @Test("what comes after the cancel's instant is not recorded")
    func cancelStopsAfterTheInstant() {
        let s = TestScheduler()
        s.run {
            s.expect(s.hot("-a--b-|").values, unsubscribe: "---!").toBe("-a--")
        }
    }

    @Test("a sequence that produces or throws after it ended fails the test, saying so", arguments: [false, true])
    func pastEnd(throwing: Bool) {
        let reporter = CollectingReporter()
        let s = TestScheduler(reporter: reporter)
        s.run { s.expect(PastEndSequence(throwsPastEnd: throwing)).toBe("(a|)") }
        let messages = reporter.failures.map(\.message)
        #expect(messages.count == 1, "\(messages)")
        let expected = throwing ? "threw" : "produced zombie"
        #expect(messages.first?.contains("the sequence \(expected)") == true && messages.first?.contains("past its end") == true)
    }
}
