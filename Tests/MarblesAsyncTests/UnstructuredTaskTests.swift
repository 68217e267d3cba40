import AsyncAlgorithms
import Dispatch
import MarbleCore
import MarblesTesting
import Testing

/// swift-async-algorithms' operators as users write them, and `Task { }` in the code under test:
/// unstructured tasks started on the driving thread run on the scheduler's executor.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
enum LibraryScenario: String, CaseIterable, CustomTestStringConvertible {
    case debounce, merge2, merge3, combineLatest, zip, throttle, chunkedByTimer, channel, viewModelTask, debounceTie, mergeTie

    var testDescription: String { rawValue }

    /// The expectation, and the diagram it must match.
    func expectation(on s: TestScheduler) -> (MarbleExpectation<String>, String, [String: String]) {
        let clock = s.clock
        switch self {
        case .debounce:
            let input = s.cold("a-b---c-|").values
            return (s.expect(input.debounce(for: .milliseconds(2), clock: clock)), "----b---(c|)", [:])
        case .merge2:
            let a = s.hot("--a-----b----c---|").values
            let b = s.hot("-----x-----y---|").values
            return (s.expect(AsyncAlgorithms.merge(a, b)), "--a--x--b--y-c---|", [:])
        case .merge3:
            let a = s.hot("--a-------b---|").values
            let b = s.hot("----x--------y|").values
            let c = s.hot("------1-|").values
            return (s.expect(AsyncAlgorithms.merge(a, b, c)), "--a-x-1---b--y|", [:])
        case .combineLatest:
            let a = s.hot("--a-----b-----c--|").values
            let b = s.hot("-----1-----2-----|").values
            return (
                s.expect(AsyncAlgorithms.combineLatest(a, b).map { $0 + $1 }), "-----x--y--z--w--|",
                ["x": "a1", "y": "b1", "z": "b2", "w": "c2"]
            )
        case .zip:
            let a = s.hot("--a--b-----c--|").values
            let b = s.hot("-----1--2--3-----|").values
            return (s.expect(AsyncAlgorithms.zip(a, b).map { $0 + $1 }), "-----x--y--z--|", ["x": "a1", "y": "b2", "z": "c3"])
        case .throttle:
            let input = s.hot("-a-b-c-d---e-|").values
            // No trailing timer in 1.1.4: a value is emitted when it arrives after the interval, so d is never sent.
            return (s.expect(input._throttle(for: .milliseconds(3), clock: clock, latest: true)), "-a---c-----e-|", [:])
        case .chunkedByTimer:
            let input = s.hot("-a-b-c---d-----|").values
            let timer = AsyncTimerSequence(interval: .milliseconds(4), clock: clock)
            return (s.expect(input.chunked(by: timer).map { $0.joined() }), "----x---y---z--|", ["x": "ab", "y": "c", "z": "d"])
        case .channel:
            let channel = AsyncChannel<String>()
            Task {
                try await clock.sleep(for: .milliseconds(2))
                await channel.send("a")
                try await clock.sleep(for: .milliseconds(3))
                await channel.send("b")
                channel.finish()
            }
            return (s.expect(channel), "--a--(b|)", [:])
        case .debounceTie:
            let input = s.hot("a-b-----|").values
            return (s.expect(input.debounce(for: .milliseconds(2), clock: clock)), TieFindings.debounce, [:])
        case .mergeTie:
            let a = s.hot("--a---|").values
            let b = s.hot("--x---|").values
            return (s.expect(AsyncAlgorithms.merge(a, b)), TieFindings.merge, [:])
        case .viewModelTask:
            let model = TaskSearchModel()
            let expectation = s.expect(model.results)
            model.start(queries: s.hot("-a-b----c--|").values, clock: clock)
            return (expectation, "-----x----y", ["x": "r:b", "y": "r:c"])
        }
    }
}

/// A view model in the style users write: it starts a `Task { }` that debounces queries.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
final class TaskSearchModel: @unchecked Sendable {
    let results = PublishSubject<String>()

    func start<Queries: AsyncSequence & Sendable>(queries: Queries, clock: TestClock) where Queries.Element == String {
        Task {
            for try await query in queries.debounce(for: .milliseconds(2), clock: clock) {
                results.onNext("r:\(query)")
            }
        }
    }
}

@Suite("Unstructured tasks and swift-async-algorithms on virtual time")
struct UnstructuredTaskTests {
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("each operator's timeline on virtual time", arguments: LibraryScenario.allCases)
    func timelines(_ scenario: LibraryScenario) {
        let scheduler = TestScheduler()
        scheduler.run {
            let (expectation, diagram, values) = scenario.expectation(on: scheduler)
            expectation.toBe(diagram, values: values)
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("each operator, and each tie, records the same timeline in 500 runs", arguments: LibraryScenario.allCases)
    func determinism(_ scenario: LibraryScenario) {
        var recordings = Set<String>()
        for _ in 0..<500 {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(reporter: reporter)
            let expectation = scheduler.run { scenario.expectation(on: scheduler).0 }
            recordings.insert(expectation.recorded.map { "\($0.value)@\($0.time)" }.joined(separator: " "))
            #expect(reporter.failures.isEmpty, "\(reporter.failures.map(\.message))")
        }
        #expect(recordings.count == 1, "\(recordings)")
        #expect(recordings.first?.isEmpty == false)
    }
}

@Suite("Ties at one virtual instant")
struct AsyncTieTests {
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("debounce: a value arriving at the instant a deadline falls wins; the pending value is dropped")
    func debounceDeadlineTie() {
        let scheduler = TestScheduler()
        scheduler.run {
            // a's deadline is frame 2, when b arrives: the hot input's message at frame 2 was scheduled
            // before the clock's wake-up, so b replaces a before the deadline is seen.
            let input = scheduler.hot("a-b-----|").values
            scheduler.expect(input.debounce(for: .milliseconds(2), clock: scheduler.clock)).toBe(TieFindings.debounce)
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("merge: two inputs emitting at one instant arrive in the order their inputs were created")
    func mergeTie() {
        let scheduler = TestScheduler()
        scheduler.run {
            let a = scheduler.hot("--a---|").values
            let b = scheduler.hot("--x---|").values
            scheduler.expect(AsyncAlgorithms.merge(a, b)).toBe(TieFindings.merge)
        }
    }
}

/// What the ties resolve to, as measured; README "Ties" documents them.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
enum TieFindings {
    static let debounce = "----b---|"
    static let merge = "--(ax)|"
}

@Suite("Escapes")
struct AsyncEscapeTests {
    enum Escape: String, CaseIterable, CustomTestStringConvertible {
        // Work on other queues and threads is waited for now (ForeignWorkTests); the main queue
        // from a test that is not on the main actor still escapes.
        case mainQueueTimer
        var testDescription: String { rawValue }

        func wait() async throws {
            switch self {
            case .mainQueueTimer:
                await withCheckedContinuation { (resume: CheckedContinuation<Void, Never>) in
                    DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(20)) { resume.resume() }
                }
            }
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("work waiting outside the test scheduler fails the test every time, naming the cause (100 runs)", arguments: Escape.allCases)
    func escapes(_ escape: Escape) {
        for _ in 0..<100 {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(reporter: reporter)
            scheduler.run {
                scheduler.expect(emitting: Int.self) { emit in
                    try await escape.wait()
                    emit(1)
                }.toBe("(1|)", values: ["1": 1])
            }
            let messages = reporter.failures.map(\.message)
            #expect(messages.contains { $0.contains("outside the test scheduler") }, "\(messages)")
        }
    }
}
