import MarbleCore
import MarblesTesting
import Testing

/// A sequence that breaks the iterator contract: after returning nil it produces (or throws) again.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
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
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("at the cancel's instant, values inputs deliver then are recorded, then the end the cancel brings")
    func cancelKeepsTheSameInstant() {
        let s = TestScheduler()
        s.run {
            let input = s.hot("-a-b-c|")
            s.expect(input.values, unsubscribe: "---!").toBe("-a-(b|)")
            s.expect(s.cold("-a-|").values, unsubscribe: "---!").toBe("-a-|")
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a sleep due at the cancel's instant is cancelled, not woken (swift-async-algorithms' validation order)")
    func cancelBeforeSleepers() {
        let s = TestScheduler()
        s.run {
            // The expectation is made before or after the sleeper's input: the same either way.
            let late = s.expect(emitting: String.self, unsubscribe: "---!") { emit in
                try await s.clock.sleep(for: .milliseconds(1))
                emit("a")
                try await s.clock.sleep(for: .milliseconds(2))
                emit("b")
            }
            late.toBe("-a-")
            let tolerant = s.expect(emitting: String.self, unsubscribe: "---!") { emit in
                try? await s.clock.sleep(for: .milliseconds(3))
                emit("woken by the cancel")
            }
            tolerant.toBe("---(w|)", values: ["w": "woken by the cancel"])
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("what comes after the cancel's instant is not recorded")
    func cancelStopsAfterTheInstant() {
        let s = TestScheduler()
        s.run {
            s.expect(s.hot("-a--b-|").values, unsubscribe: "---!").toBe("-a-|")
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a sequence that produces or throws after it ended fails the test, saying so", arguments: [false, true])
    func pastEnd(throwing: Bool) {
        let reporter = MarbleFailure.Collector()
        let s = TestScheduler(reporter: reporter)
        s.run { s.expect(PastEndSequence(throwsPastEnd: throwing)).toBe("(a|)") }
        let messages = reporter.failures.map(\.message)
        #expect(messages.count == 1, "\(messages)")
        let expected = throwing ? "threw" : "produced zombie"
        #expect(messages.first?.contains("the sequence \(expected)") == true && messages.first?.contains("past its end") == true)
    }
}
