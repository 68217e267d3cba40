import AsyncAlgorithms
import Foundation
import MarblesTesting
import Testing

/// A scheduler collecting failures, for the tests that check what is reported.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
private func collecting() -> (TestScheduler, MarbleFailure.Collector) {
    let reporter = MarbleFailure.Collector()
    return (TestScheduler(reporter: reporter), reporter)
}

@Suite("Async sequences on virtual time")
struct AsyncMarbleTests {
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a test observable's values, through a standard map, keep their virtual times")
    func valuesAndMap() {
        let scheduler = TestScheduler()
        scheduler.run {
            let input = scheduler.cold("a-b---c-|", values: ["a": 1, "b": 2, "c": 3])
            scheduler.expect(input.values.map { $0 * 10 }).toBe("a-b---c-|", values: ["a": 10, "b": 20, "c": 30])
            scheduler.expect(subscriptions: input.subscriptions).toBe("^-------!")
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("the README's async example, verbatim")
    func delaysOnVirtualTime() {
        let scheduler = TestScheduler()
        scheduler.run {
            let input = scheduler.cold("a-b---c-|", values: ["a": 1, "b": 2, "c": 3])
            scheduler.expect(input.values.map { $0 * 10 }).toBe("a-b---c-|", values: ["a": 10, "b": 20, "c": 30])

            let values = input.values
            scheduler.expect(emitting: Int.self) { emit in
                // Your own async code, sleeping on scheduler.clock: each value waits 3 frames after it is read.
                for try await value in values {
                    try await scheduler.clock.sleep(for: .milliseconds(3))
                    emit(value)
                }
            }.toBe("---a--b--(c|)", values: ["a": 1, "b": 2, "c": 3])
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a structured debounce written with a task group")
    func structuredDebounce() {
        let scheduler = TestScheduler()
        scheduler.run {
            let input = scheduler.cold("a-b---c-|", values: ["a": 1, "b": 2, "c": 3])
            let values = input.values
            scheduler.expect(emitting: Int.self) { emit in
                try await debounce(values, for: .milliseconds(2), clock: scheduler.clock, emit: emit)
            }.toBe("----b---(c|)", values: ["b": 2, "c": 3])
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("structured merge, combineLatest and zip match the Observable operators' timing")
    func structuredCombining() {
        let scheduler = TestScheduler()
        scheduler.run {
            let a = scheduler.hot("--a-----b----c---|").values
            let b = scheduler.hot("-----x-----y---|").values
            scheduler.expect(emitting: String.self) { emit in try await merge([a, b], emit: emit) }
                .toBe("--a--x--b--y-c---|")
            let c = scheduler.hot("--a-----b-----c--|").values
            let d = scheduler.hot("-----1-----2-----|").values
            scheduler.expect(emitting: [String].self) { emit in try await combineLatest([c, d], emit: emit) }
                .toBe("-----x--y--z--w--|", values: ["x": ["a", "1"], "y": ["b", "1"], "z": ["b", "2"], "w": ["c", "2"]])
            let e = scheduler.hot("--a--b-----c--|").values
            let f = scheduler.hot("-----1--2--3-----|").values
            scheduler.expect(emitting: [String].self) { emit in try await zip([e, f], emit: emit) }
                .toBe("-----x--y--z--|", values: ["x": ["a", "1"], "y": ["b", "2"], "z": ["c", "3"]])
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a hand-written AsyncStream producer in a task-group child, and a hand-written operator")
    func handWritten() {
        let scheduler = TestScheduler()
        scheduler.run {
            let clock = scheduler.clock
            scheduler.expect(emitting: Int.self) { emit in
                let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for value in [1, 2, 3] {
                            try await clock.sleep(for: .milliseconds(value))
                            continuation.yield(value)
                        }
                        continuation.finish()
                    }
                    for await value in stream { emit(value) }
                    try await group.waitForAll()
                }
            }.toBe("-a-b--(c|)", values: ["a": 1, "b": 2, "c": 3])
            let input = scheduler.cold("-a--b-c|", values: ["a": 1, "b": 2, "c": 3])
            scheduler.expect(RunningSum(base: input.values)).toBe("-a--b-c|", values: ["a": 1, "b": 3, "c": 6])
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("async let children stay on the scheduler's executor")
    func asyncLet() {
        let scheduler = TestScheduler()
        scheduler.run {
            let clock = scheduler.clock
            scheduler.expect(emitting: Int.self) { emit in
                async let first: Int = {
                    try await clock.sleep(for: .milliseconds(3))
                    return 1
                }()
                async let second: Int = {
                    try await clock.sleep(for: .milliseconds(5))
                    return 2
                }()
                emit(try await first + second)
            }.toBe("-----(x|)", values: ["x": 3])
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a default actor in the pipeline runs on the scheduler's executor, sleeping on its clock")
    func defaultActor() {
        let scheduler = TestScheduler()
        scheduler.run {
            let clock = scheduler.clock
            let values = scheduler.cold("-a--b-c|", values: ["a": 1, "b": 2, "c": 3]).values
            scheduler.expect(emitting: Int.self) { emit in
                let totals = RunningTotal()
                for try await value in values { emit(try await totals.add(value, after: .milliseconds(1), on: clock)) }
            }.toBe("--a--b-(c|)", values: ["a": 1, "b": 3, "c": 6])
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("swift-async-algorithms operators that start no task: _throttle, chunks, removeDuplicates, adjacentPairs")
    func asyncAlgorithmsStructured() {
        let scheduler = TestScheduler()
        scheduler.run {
            let throttled = scheduler.cold("abc--d---e|", values: ["a": 1, "b": 2, "c": 3, "d": 4, "e": 5]).values
            scheduler.expect(throttled._throttle(for: .milliseconds(3), clock: scheduler.clock, latest: true))
                .toBe("a----d---e|", values: ["a": 1, "d": 4, "e": 5])
            let chunked = scheduler.cold("-a-b-c-d-e|").values
            scheduler.expect(chunked.chunks(ofCount: 2).map { $0.joined() }).toBe(
                "---x---y--(z|)", values: ["x": "ab", "y": "cd", "z": "e"])
            let repeated = scheduler.cold("-a-a-b-b-a|").values
            scheduler.expect(repeated.removeDuplicates()).toBe("-a---b---a|")
            let pairs = scheduler.cold("-a-b-c|").values
            scheduler.expect(pairs.adjacentPairs().map { $0.0 + $0.1 }).toBe("---x-y|", values: ["x": "ab", "y": "bc"])
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a sequence that throws records '#' with its error")
    func throwing() {
        let scheduler = TestScheduler()
        scheduler.run {
            let input = scheduler.cold("-a-#", values: ["a": 1], error: Boom())
            scheduler.expect(input.values.map { $0 + 1 }).toBe("-b-#", values: ["b": 2], error: Boom())
            scheduler.expect(emitting: Int.self) { emit in
                try await scheduler.clock.sleep(for: .milliseconds(2))
                throw Boom()
            }.toBe("--#", error: Boom())
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("'!' in the unsubscription diagram cancels the consuming task at that frame")
    func cancellation() {
        let scheduler = TestScheduler()
        let terminated = TerminationFlag()
        scheduler.run {
            let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
            continuation.onTermination = { reason in if case .cancelled = reason { terminated.set() } }
            let input = scheduler.cold("-a-b-c-d|", values: ["a": 1, "b": 2, "c": 3, "d": 4])
            input.subscribe(onNext: { continuation.yield($0) }, onCompleted: { continuation.finish() })
            // Cancelled at frame 4, the stream's iteration ends there (`next()` returns nil), and
            // that end is recorded at the cancel's instant; its value at frame 5 never comes.
            scheduler.expect(stream, unsubscribe: "^---!").toBe("-a-b|", values: ["a": 1, "b": 2])
            let clock = scheduler.clock
            scheduler.expect(emitting: Int.self, unsubscribe: "---!") { emit in
                while true {
                    try await clock.sleep(for: .milliseconds(2))
                    emit(0)
                }
            }.toBe("--0-", values: ["0": 0])
        }
        #expect(terminated.isSet)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("every scenario records the same timeline in 200 runs", arguments: Scenario.allCases)
    func determinism(_ scenario: Scenario) {
        var recordings = Set<String>()
        for _ in 0..<200 {
            let (scheduler, reporter) = collecting()
            let expectation = scheduler.run { scenario.expectation(on: scheduler) }
            expectation.toBeAnyDiagram()
            scheduler.flush()
            recordings.insert(expectation.recorded.map { "\($0.value)@\($0.time)" }.joined(separator: " "))
            #expect(reporter.failures.allSatisfy { $0.message.hasPrefix("marble diagrams differ") })
        }
        #expect(recordings.count == 1, "\(recordings)")
        #expect(recordings.first?.isEmpty == false)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("an async sequence that never settles hits the step limit with a clear failure")
    func neverSettles() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(stepLimit: 2_000, reporter: reporter)
        scheduler.run {
            let clock = scheduler.clock
            scheduler.expect(emitting: Int.self) { emit in
                while true {
                    try await clock.sleep(for: .milliseconds(1))
                    emit(1)
                }
            }.toBe("-")
        }
        #expect(reporter.failures.first?.message.contains("steps and work was still due") == true)
        #expect(reporter.failures.first?.message.contains("unsubscription diagram") == true)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a value emitted from another thread is not recorded, and the test says that work was racy")
    func emissionFromAnotherThread() {
        let (scheduler, reporter) = collecting()
        scheduler.run {
            scheduler.expect(emitting: String.self) { emit in
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    Thread {
                        emit("x")
                        done.resume()
                    }.start()
                }
                emit("y")
            }.toBe("(y|)")
        }
        #expect(reporter.failures.count == 1, "\(reporter.failures.map(\.message))")
        #expect(reporter.failures.first?.message.contains("1 emission(s) off its thread") == true)
    }
}

@Suite("TestClock")
struct TestClockTests {
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("sleepers wake in (deadline, registration) order, at their deadlines")
    func wakeOrder() {
        let scheduler = TestScheduler()
        scheduler.run {
            let clock = scheduler.clock
            scheduler.expect(emitting: String.self) { emit in
                await withTaskGroup(of: Void.self) { group in
                    for (name, delay) in [("a", 3), ("b", 1), ("c", 3), ("d", 1)] {
                        group.addTask {
                            try? await clock.sleep(for: .milliseconds(delay))
                            emit(name)
                        }
                    }
                }
            }.toBe("-[bd]-(ac|)")
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("cancellation before and during a sleep throws CancellationError; now is virtual")
    func cancellation() {
        let scheduler = TestScheduler()
        scheduler.run {
            let clock = scheduler.clock
            scheduler.expect(emitting: String.self) { emit in
                await withTaskGroup(of: Void.self) { group in
                    group.cancelAll()
                    group.addTask {
                        do { try await clock.sleep(for: .milliseconds(5)) } catch { emit("early:\(error is CancellationError)") }
                    }
                }
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        do { try await clock.sleep(for: .milliseconds(5)) } catch {
                            emit("during:\(error is CancellationError)@\(clock.now)")
                        }
                    }
                    try? await clock.sleep(for: .milliseconds(2))
                    group.cancelAll()
                }
            }.toBe("'early:true'-('during:true@0.002 seconds'|)")
        }
    }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
enum Scenario: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case map, debounce, merge, combineLatest, zip, throttle, handWritten

    var testDescription: String { rawValue }

    func expectation(on scheduler: TestScheduler) -> any ScenarioExpectation {
        let input = scheduler.hot("-a-bc---d-e---f|", values: ["a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6])
        let other = scheduler.hot("--1---2-3--4---|", values: ["1": 10, "2": 20, "3": 30, "4": 40])
        let values = input.values
        let others = other.values
        let clock = scheduler.clock
        switch self {
        case .map: return scheduler.expect(values.map { $0 * 2 })
        case .debounce:
            return scheduler.expect(emitting: Int.self) { emit in
                try await MarblesAsyncTests.debounce(values, for: .milliseconds(2), clock: clock, emit: emit)
            }
        case .merge:
            return scheduler.expect(emitting: Int.self) { emit in try await MarblesAsyncTests.merge([values, others], emit: emit) }
        case .combineLatest:
            return scheduler.expect(emitting: [Int].self) { emit in try await MarblesAsyncTests.combineLatest([values, others], emit: emit)
            }
        case .zip: return scheduler.expect(emitting: [Int].self) { emit in try await MarblesAsyncTests.zip([values, others], emit: emit) }
        case .throttle: return scheduler.expect(values._throttle(for: .milliseconds(3), clock: clock, latest: true))
        case .handWritten: return scheduler.expect(RunningSum(base: values))
        }
    }
}

/// Expectations of `Int`s and of `[Int]`s, side by side.
protocol ScenarioExpectation {
    var recorded: [Recorded<Event<RecordedValue>>] { get }
    /// Any diagram: only the recording is compared across runs.
    func toBeAnyDiagram()
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension MarbleExpectation: ScenarioExpectation {
    func toBeAnyDiagram() { toBe("-") }
}

/// A default actor (no custom executor): its methods run on the calling task's executor.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
actor RunningTotal {
    private var total = 0

    func add(_ value: Int, after delay: Duration, on clock: TestClock) async throws -> Int {
        try await clock.sleep(for: delay)
        total += value
        return total
    }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
final class TerminationFlag: @unchecked Sendable {
    private let lock = NSLockLike()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
