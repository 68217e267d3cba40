import AsyncAlgorithms
import Dispatch
import Foundation
import MarbleCore
import MarblesTesting
import Testing

@testable import Marbles
@testable import MarblesRuntime

/// Code that reads the system clocks (`ContinuousClock.now`, `SuspendingClock.now`, `Date()`)
/// inside a run reads virtual time, and every `Task.sleep` lasts exactly what it asked for,
/// however long the task ran in real time before it slept. Each case is one that main (46cfddf)
/// got wrong, written the way apps write it.
@Suite("Virtual clocks inside a run", .noPortabilityWarning)
struct VirtualClockTests {
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a sleep after 40 ms of real work wakes after exactly its duration")
    func sleepAfterRealWork() {
        let scheduler = TestScheduler(frame: .milliseconds(10))
        scheduler.run {
            scheduler.expect(emitting: String.self) { emit in
                realSpin(for: .milliseconds(40))
                try await Task.sleep(for: .milliseconds(70))
                emit("a")
            }.toBe("-------(a|)")
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a rate limiter that compares ContinuousClock.now allows a call 1.1 virtual seconds after the last")
    func rateLimiter() {
        let scheduler = TestScheduler(frame: .milliseconds(100))
        scheduler.run {
            scheduler.expect(emitting: String.self) { emit in
                let limiter = RateLimiter(interval: .seconds(1))
                emit(limiter.allow() ? "y" : "n")
                try await Task.sleep(for: .milliseconds(500))
                emit(limiter.allow() ? "y" : "n")
                try await Task.sleep(for: .milliseconds(600))
                emit(limiter.allow() ? "y" : "n")
            }.toBe("y----n-----(y|)", values: ["y": "y", "n": "n"])
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("ContinuousClock.now and SuspendingClock.now measure a 3 s sleep as exactly 3 s")
    func durationAroundSleep() {
        let scheduler = TestScheduler(frame: .seconds(1))
        scheduler.run {
            scheduler.expect(emitting: Duration.self) { emit in
                let c0 = ContinuousClock.now
                let s0 = SuspendingClock.now
                try await Task.sleep(for: .seconds(3))
                emit(c0.duration(to: .now))
                emit(s0.duration(to: .now))
            }.toBe("---(ab|)", values: ["a": .seconds(3), "b": .seconds(3)])
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("Date() and Date.now measure a 5 s sleep as exactly 5 s")
    func dateAroundSleep() {
        // A whole start date: `Date` is a Double of seconds since 2001, exact for whole seconds
        // (from the real date, a difference is exact to Date's own precision, about 0.1 µs).
        let scheduler = TestScheduler(frame: .seconds(1), startDate: Date(timeIntervalSince1970: 1_700_000_000))
        scheduler.run {
            scheduler.expect(emitting: TimeInterval.self) { emit in
                let d0 = Date()
                try await Task.sleep(for: .seconds(5))
                emit(Date().timeIntervalSince(d0))
                emit(Date.now.timeIntervalSince(d0))
            }.toBe("-----(ab|)", values: ["a": 5, "b": 5])
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("Date starts at the real date when the run starts, or at the start date the test gives")
    func startDate() {
        let before = Date().timeIntervalSince1970
        let scheduler = TestScheduler(frame: .seconds(1))
        var seen: [Double] = []
        scheduler.run {
            seen.append(Date().timeIntervalSince1970)
            scheduler.schedule(after: .seconds(2)) { seen.append(Date().timeIntervalSince1970) }
        }
        let after = Date().timeIntervalSince1970
        #expect(seen.count == 2)
        #expect(seen[0] >= before && seen[0] <= after)
        #expect(seen[1] - seen[0] == 2)

        let given = Date(timeIntervalSince1970: 1_000_000_000)
        let dated = TestScheduler(frame: .seconds(1), startDate: given)
        var read: [Date] = []
        dated.run {
            dated.schedule(after: .seconds(90)) { read.append(Date()) }
        }
        #expect(read == [given.addingTimeInterval(90)])
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a thread the run starts reads the run's clocks; the test outside a run reads the real ones")
    func realOutsideRuns() {
        let scheduler = TestScheduler(frame: .seconds(1))
        let realBefore = Date()
        var fromOtherThread: TimeInterval = -1
        scheduler.run {
            scheduler.schedule(after: .seconds(3600)) {
                let done = DispatchSemaphore(value: 0)
                let box = UncheckedBox<TimeInterval>(-1)
                Thread.detachNewThread {
                    box.value = Date().timeIntervalSince(realBefore)
                    done.signal()
                }
                done.wait()
                fromOtherThread = box.value
            }
        }
        // The thread started at virtual 3600 s is in the run: it reads the run's date (issue 67).
        #expect(fromOtherThread >= 3600 && fromOtherThread < 3660)
        #expect(Date().timeIntervalSince(realBefore) < 60)
        let c0 = ContinuousClock.now
        realSpin(for: .milliseconds(2))
        #expect(c0.duration(to: .now) >= .milliseconds(2))
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("swift-async-algorithms' debounce and throttle on their default clock give the diagrams they give on scheduler.clock")
    func asyncAlgorithmsDefaultClock() {
        let scheduler = TestScheduler()
        scheduler.run {
            let input = scheduler.cold("a-b---c-|").values
            scheduler.expect(input.debounce(for: .milliseconds(2))).toBe("----b---(c|)")
            let hot = scheduler.hot("-a-b-c-d---e-|").values
            scheduler.expect(hot._throttle(for: .milliseconds(3), latest: true)).toBe("-a---c-----e-|")
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("AsyncTimerSequence on the default clock ticks at its virtual interval")
    func timerDefaultClock() {
        let scheduler = TestScheduler()
        scheduler.run {
            let ticks = AsyncTimerSequence(interval: .milliseconds(3), clock: .continuous).prefix(3).map { _ in "x" }
            scheduler.expect(ticks).toBe("---x--x--(x|)")
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a Task { } started inside an actor method sleeps on virtual time")
    func taskStartedInActor() {
        let scheduler = TestScheduler(frame: .milliseconds(100))
        scheduler.run {
            scheduler.expect(emitting: [String].self) { emit in
                let cache = Cache()
                await cache.refreshLater().value
                emit(await cache.items)
            }.toBe("--(a|)", values: ["a": ["fresh"]])
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a Task { } started inside an actor awaits a nonisolated function that sleeps, on virtual time")
    func taskInActorAwaitingNonisolated() {
        let scheduler = TestScheduler(frame: .milliseconds(100))
        scheduler.run {
            scheduler.expect(emitting: [String].self) { emit in
                let cache = Cache()
                await cache.refreshThroughLoader().value
                emit(await cache.items)
            }.toBe("---(a|)", values: ["a": ["loaded"]])
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a sleep with a tolerance in a task started inside an actor escapes to Dispatch, and the run says the task is still suspended")
    func toleranceInActorTaskIsReported() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(frame: .milliseconds(100), reporter: reporter)
        scheduler.run {
            _ = scheduler.expect(emitting: [String].self) { emit in
                let cache = Cache()
                await cache.refreshWithTolerance().value
                emit(await cache.items)
            }
        }
        #expect(reporter.failures.map(\.message).contains { $0.contains("still suspended when nothing was left to run") })
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("the clock interposer chains to a sanitizer's interceptor when one is linked, else to libc's clock_gettime")
    func chainsToTheNextDefinition() {
        let sanitizer = ["__tsan_init", "__asan_init"].contains { (name: String) in
            dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) != nil
        }
        let next = RuntimeHooks.clockGettimeNext
        #if os(Linux)
            #expect(RuntimeHooks.clockInterposerLinked, "MarblesTesting links the clock interposer into the test executable")
        #endif
        if sanitizer {
            #expect(next.contains("interceptor_clock_gettime"), "\(next)")
        } else {
            #expect(next.hasSuffix("clock_gettime"), "\(next)")
            #expect(!next.contains("interceptor"), "\(next)")
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("the four cases give one timeline in 500 runs")
    func determinism() {
        var timelines = Set<String>()
        for _ in 0..<500 {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(frame: .milliseconds(10), reporter: reporter)
            let expectation = scheduler.run {
                scheduler.expect(emitting: String.self) { emit in
                    let limiter = RateLimiter(interval: .seconds(1))
                    _ = limiter.allow()
                    let d0 = Date()
                    let c0 = ContinuousClock.now
                    try await Task.sleep(for: .milliseconds(70))
                    let cache = Cache()
                    await cache.refreshLater().value
                    emit(
                        "\(limiter.allow()) \(c0.duration(to: .now)) \((Date().timeIntervalSince(d0) * 1e6).rounded()) µs \(await cache.items)"
                    )
                    try await Task.sleep(for: .milliseconds(900))
                    emit("\(limiter.allow())")
                }
            }
            #expect(reporter.failures.isEmpty, "\(reporter.failures.map(\.message))")
            timelines.insert(expectation.recorded.map { "\($0.value)@\($0.time)" }.joined(separator: " "))
        }
        #expect(timelines.count == 1, "\(timelines)")
    }
}

/// A rate limiter written the common way: it compares the system clock with the last call.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
final class RateLimiter: @unchecked Sendable {
    private let interval: Duration
    private var last: ContinuousClock.Instant?
    init(interval: Duration) { self.interval = interval }

    func allow() -> Bool {
        if let last, last.duration(to: ContinuousClock.now) < interval { return false }
        last = ContinuousClock.now
        return true
    }
}

/// An actor that starts tasks from its methods, as apps' caches do.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
actor Cache {
    private(set) var items: [String] = []

    func refreshLater() -> Task<Void, Never> {
        Task {
            try? await Task.sleep(for: .milliseconds(200))
            items = ["fresh"]
        }
    }

    func refreshThroughLoader() -> Task<Void, Never> {
        Task {
            let loaded = await load()
            items = loaded
        }
    }

    func refreshWithTolerance() -> Task<Void, Never> {
        Task {
            try? await Task.sleep(for: .milliseconds(200), tolerance: .milliseconds(10))
            items = ["fresh"]
        }
    }

    nonisolated func load() async -> [String] {
        try? await Task.sleep(for: .milliseconds(300))
        return ["loaded"]
    }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
final class UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// Busy-waits `duration` of real time (the test's own clock reads stay real inside a run).
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
func realSpin(for duration: Duration) {
    let nanoseconds = UInt64(duration.components.seconds) * 1_000_000_000 + UInt64(duration.components.attoseconds / 1_000_000_000)
    let end = realMonotonicNanoseconds() + nanoseconds
    while realMonotonicNanoseconds() < end {}
}

/// Real time, past the interposer (in a run the test's own `clock_gettime` reads virtual time).
func realMonotonicNanoseconds() -> UInt64 { UInt64(Watchdog.realNanoseconds()) }
