import Dispatch
import Foundation
import MarbleCore
import MarblesRuntime
import MarblesTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// Issue 67: whatever a test's work starts stays on its virtual time, at any depth (timers
// re-armed by a worker, waits and sleeps on worker threads), and a run whose members are all
// blocked with nothing due reports a deadlock at once. Shapes as code written before
// async/await has them: nothing injected.

/// Real time in nanoseconds, past the interposer (in a run the test's own `clock_gettime` reads
/// virtual time).
private func realNanoseconds() -> Int64 { Int64(Watchdog.realNanoseconds()) }

/// Runs `work` on a global queue and answers with what it returns: a blocking API called from
/// async code, as apps bridge one.
private func onWorker<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: work()) }
    }
}

/// Runs `work` on a Foundation `Thread` of its own.
private func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}

final class Shared<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func update(_ change: (inout Value) -> Void) { lock.withLock { change(&stored) } }
}

/// A price feed that re-arms `asyncAfter` from its own handler, on a global queue.
private final class ChainedFeed: Sendable {
    let prices = Shared<[Int]>([])
    let instants = Shared<[Duration]>([])
    private let start = ContinuousClock.now

    func begin(count: Int) { arm(0, count: count) }

    private func arm(_ price: Int, count: Int) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(500)) { [self] in
            prices.update { $0.append(price) }
            instants.update { $0.append(ContinuousClock.now - start) }
            if price + 1 < count { arm(price + 1, count: count) }
        }
    }
}

@Suite("One bubble: what the test's work starts stays on virtual time", .noPortabilityWarning)
struct OneBubbleTests {
    @Test(.virtualTime) func aFeedThatReArmsAsyncAfterFromItsHandlerTicksOnVirtualTime() async throws {
        let feed = ChainedFeed()
        feed.begin(count: 3)
        try await Task.sleep(for: .milliseconds(500))
        #expect(feed.prices.value == [0])
        try await Task.sleep(for: .milliseconds(500))
        #expect(feed.prices.value == [0, 1])
        try await Task.sleep(for: .milliseconds(500))
        #expect(feed.prices.value == [0, 1, 2])
        #expect(feed.instants.value == [.milliseconds(500), .milliseconds(1000), .milliseconds(1500)])
    }

    @Test(.virtualTime) func aWorkersDelayedAnswerLandsAtItsDelay() async throws {
        let answered = Shared<Bool>(false)
        DispatchQueue.global().async {
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(500)) { answered.update { $0 = true } }
        }
        try await Task.sleep(for: .milliseconds(499))
        #expect(answered.value == false)
        try await Task.sleep(for: .milliseconds(1))
        #expect(answered.value == true)
    }

    @Suite("Blocking waits on a worker thread are virtual")
    struct BlockingWaits {
        /// Runs `wait` on a worker; its answer, the virtual time it took, and the real time.
        static func measure<T: Sendable>(
            onThread: Bool = false, _ wait: @escaping @Sendable () -> T
        ) async -> (answer: T, virtual: Duration, real: Duration) {
            let start = ContinuousClock.now
            let realStart = realNanoseconds()
            let answer = onThread ? await OneBubbleTestsSupport.thread(wait) : await OneBubbleTestsSupport.worker(wait)
            return (answer, ContinuousClock.now - start, .nanoseconds(realNanoseconds() - realStart))
        }

        @Test(.virtualTime) func aSemaphoreBridgeWaitsForAnAnswerDueInTwoSeconds() async {
            let (answer, elapsed, real) = await Self.measure { () -> Int in
                let semaphore = DispatchSemaphore(value: 0)
                let result = Shared<Int>(0)
                DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(2)) {
                    result.update { $0 = 42 }
                    semaphore.signal()
                }
                semaphore.wait()
                return result.value
            }
            #expect(answer == 42)
            #expect(elapsed == .seconds(2))
            #expect(real < .seconds(2))
        }

        @Test(.virtualTime) func aSemaphoreTimeoutBeforeTheAnswerTimesOutAtItsDeadline() async {
            let (answer, elapsed, real) = await Self.measure { () -> DispatchTimeoutResult in
                let semaphore = DispatchSemaphore(value: 0)
                DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(8)) { semaphore.signal() }
                return semaphore.wait(timeout: .now() + .seconds(5))
            }
            #expect(answer == .timedOut)
            #expect(elapsed == .seconds(5))
            #expect(real < .seconds(5))
        }

        @Test(.virtualTime) func threadSleepThreeTimesTakesSixSeconds() async {
            let (_, elapsed, real) = await Self.measure(onThread: true) {
                for _ in 0..<3 { Thread.sleep(forTimeInterval: 2) }
                return 0
            }
            #expect(elapsed == .seconds(6))
            #expect(real < .seconds(6))
        }

        @Test(.virtualTime) func usleepTakesOneAndAHalfSeconds() async {
            let (_, elapsed, real) = await Self.measure {
                usleep(1_500_000)
                return 0
            }
            #expect(elapsed == .milliseconds(1500))
            #expect(real < .milliseconds(1500))
        }

        @Test(.virtualTime) func nanosleepAndSleepAreVirtual() async {
            let (_, elapsed, _) = await Self.measure {
                var request = timespec(tv_sec: 0, tv_nsec: 250_000_000)
                nanosleep(&request, nil)
                sleep(2)
                return 0
            }
            #expect(elapsed == .milliseconds(2250))
        }

        @Test(.virtualTime) func aGroupWaitReturnsWhenItsLastMemberLeaves() async {
            let (answer, elapsed, real) = await Self.measure { () -> DispatchTimeoutResult in
                let group = DispatchGroup()
                for seconds in [1, 3, 2] {
                    group.enter()
                    DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds)) { group.leave() }
                }
                return group.wait(timeout: .now() + .seconds(10))
            }
            #expect(answer == .success)
            #expect(elapsed == .seconds(3))
            #expect(real < .seconds(3))
        }

        @Test(.virtualTime) func aGroupsAsyncBlocksAreWaitedForOnVirtualTime() async {
            let (answer, elapsed, _) = await Self.measure { () -> DispatchTimeoutResult in
                let group = DispatchGroup()
                DispatchQueue.global().async(group: group) { usleep(700_000) }
                DispatchQueue.global().async(group: group) { usleep(300_000) }
                return group.wait(timeout: .now() + .seconds(10))
            }
            #expect(answer == .success)
            #expect(elapsed == .milliseconds(700))
        }

        @Test(.virtualTime) func aConditionWaitUntilADateTimesOutThen() async {
            let (signalled, elapsed, real) = await Self.measure { () -> Bool in
                let condition = NSCondition()
                condition.lock()
                defer { condition.unlock() }
                return condition.wait(until: Date().addingTimeInterval(4))
            }
            #expect(signalled == false)
            #expect(elapsed == .seconds(4))
            #expect(real < .seconds(4))
        }

        @Test(.virtualTime) func aConditionSignalledByAnotherMemberReturnsAtThatInstant() async {
            let (signalled, elapsed, _) = await Self.measure { () -> Bool in
                let condition = NSCondition()
                let ready = Shared<Bool>(false)
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(1200)) {
                    condition.lock()
                    ready.update { $0 = true }
                    condition.signal()
                    condition.unlock()
                }
                condition.lock()
                defer { condition.unlock() }
                while !ready.value {
                    if !condition.wait(until: Date().addingTimeInterval(60)) { return false }
                }
                return true
            }
            #expect(signalled)
            #expect(elapsed == .milliseconds(1200))
        }

        @Test(.virtualTime) func aTimedSleepAndATimeoutOnTwoWorkersOverlap() async {
            let start = ContinuousClock.now
            async let slept: Int = OneBubbleTestsSupport.worker {
                Thread.sleep(forTimeInterval: 3)
                return 0
            }
            async let timedOut = OneBubbleTestsSupport.worker { DispatchSemaphore(value: 0).wait(timeout: .now() + .seconds(5)) }
            _ = await (slept, timedOut)
            #expect(ContinuousClock.now - start == .seconds(5))
        }
    }

    @Test func workersBlockedOnEachOtherAreReportedAsADeadlockAtOnce() async {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        let release = Shared<DispatchSemaphore?>(nil)
        let realStart = realNanoseconds()
        let end = scheduler.runBody(at: MarbleFailure.Location()) { _ in
            try await Task.sleep(for: .seconds(1))
            return await OneBubbleTestsSupport.worker { () -> Int in
                let never = DispatchSemaphore(value: 0)
                release.update { $0 = never }
                never.wait()
                return 0
            }
        }
        let real = Duration.nanoseconds(realNanoseconds() - realStart)
        release.value?.signal()  // lets the worker thread go
        guard case .unfinished = end else {
            Issue.record("the body should not have finished")
            return
        }
        let messages = reporter.failures.map(\.message)
        #expect(messages.count == 1)
        #expect(messages.first?.hasPrefix("deadlock at frame 1000: every thread the test's work started is blocked") == true)
        #expect(
            messages.first?.contains("a block on queue 'com.apple.root.default-qos' waits on a DispatchSemaphore since frame 1000") == true)
        // At once, not after the 10 s bound (a loose margin: CI machines run sanitizers in parallel).
        #expect(real < .seconds(5))
    }

    @Suite("Outside a run, waits and sleeps are as without Marbles")
    struct OutsideRuns {
        @Test func aSemaphoreTimeoutWaitsInRealTime() {
            let start = realNanoseconds()
            let result = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(50))
            #expect(result == .timedOut)
            #expect(realNanoseconds() - start >= 45_000_000)
        }

        @Test func aConditionWaitsInRealTime() {
            let condition = NSCondition()
            condition.lock()
            let start = realNanoseconds()
            let signalled = condition.wait(until: Date().addingTimeInterval(0.05))
            condition.unlock()
            #expect(!signalled)
            #expect(realNanoseconds() - start >= 45_000_000)
        }

        @Test func aSleepSleepsInRealTime() {
            let start = realNanoseconds()
            usleep(30_000)
            Thread.sleep(forTimeInterval: 0.02)
            #expect(realNanoseconds() - start >= 48_000_000)
        }

        @Test func aSemaphoreSignalledFromAnotherThreadWakesItsWaiter() {
            let semaphore = DispatchSemaphore(value: 0)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(10)) { semaphore.signal() }
            #expect(semaphore.wait(timeout: .now() + .seconds(5)) == .success)
        }
    }
}

enum OneBubbleTestsSupport {
    static func worker<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T { await onWorker(work) }
    static func thread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T { await onThread(work) }

    /// The issue's six blocking waits on a worker, each with the virtual time it must take.
    static let blockingWaits: [(name: String, takes: Duration, work: @Sendable () -> Void)] = [
        (
            "a semaphore bridge answered after 2 s", .seconds(2),
            {
                let semaphore = DispatchSemaphore(value: 0)
                DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(2)) { semaphore.signal() }
                semaphore.wait()
            }
        ),
        (
            "a 5 s semaphore timeout before an 8 s answer", .seconds(5),
            {
                let semaphore = DispatchSemaphore(value: 0)
                DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(8)) { semaphore.signal() }
                _ = semaphore.wait(timeout: .now() + .seconds(5))
            }
        ),
        ("Thread.sleep(2) three times", .seconds(6), { for _ in 0..<3 { Thread.sleep(forTimeInterval: 2) } }),
        ("usleep(1_500_000)", .milliseconds(1500), { usleep(1_500_000) }),
        (
            "a group wait on members due at 1, 3 and 2 s", .seconds(3),
            {
                let group = DispatchGroup()
                for seconds in [1, 3, 2] {
                    group.enter()
                    DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds)) { group.leave() }
                }
                _ = group.wait(timeout: .now() + .seconds(10))
            }
        ),
        (
            "NSCondition.wait(until: now + 4 s)", .seconds(4),
            {
                let condition = NSCondition()
                condition.lock()
                _ = condition.wait(until: Date().addingTimeInterval(4))
                condition.unlock()
            }
        ),
    ]

    /// The virtual time `work` took on a `Thread` of the run, in a run of its own, and the run's
    /// failures. (A thread, not a global queue's worker: fifty runs side by side each blocking a
    /// worker would leave none for the blocks that wake them until libdispatch adds more.)
    static func virtualTime(of work: @escaping @Sendable () -> Void) -> (Duration?, [String]) {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        let end = scheduler.runBody(at: MarbleFailure.Location()) { _ in
            let start = ContinuousClock.now
            _ = await onThread { () -> Int in
                work()
                return 0
            }
            return ContinuousClock.now - start
        }
        guard case .finished(.success(let elapsed)) = end else { return (nil, reporter.failures.map(\.message)) }
        return (elapsed, reporter.failures.map(\.message))
    }
}

@Suite("One bubble: the six blocking waits, again and again")
struct OneBubbleRepeatedTests {
    @Test("each gives its virtual time 100 times in a row, then 50 times side by side", arguments: 0..<6)
    func again(_ index: Int) {
        let shape = OneBubbleTestsSupport.blockingWaits[index]
        for _ in 0..<100 {
            let (elapsed, failures) = OneBubbleTestsSupport.virtualTime(of: shape.work)
            #expect(elapsed == shape.takes && failures.isEmpty, "\(shape.name): \(String(describing: elapsed)) \(failures)")
        }
        let seen = Shared<[String]>([])
        let done = DispatchGroup()
        for _ in 0..<50 {
            done.enter()
            Thread {
                let (elapsed, failures) = OneBubbleTestsSupport.virtualTime(of: shape.work)
                if elapsed != shape.takes || !failures.isEmpty {
                    seen.update { $0.append("\(String(describing: elapsed)) \(failures)") }
                }
                done.leave()
            }.start()
        }
        done.wait()
        #expect(seen.value.isEmpty, "\(shape.name): \(seen.value)")
    }
}
