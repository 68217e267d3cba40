internal import Atomics
import MarbleCore
import MarblesRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension TestClock {
    /// A point on a ``TestScheduler``'s virtual timeline.
    public struct Instant: InstantProtocol, Sendable, CustomStringConvertible {
        /// The time since the scheduler's frame 0.
        public var offset: Duration

        /// An instant at `offset`.
        public init(offset: Duration) { self.offset = offset }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> TestClock.Instant { TestClock.Instant(offset: offset + duration) }
        /// The duration from this instant to `other`.
        public func duration(to other: TestClock.Instant) -> Duration { other.offset - offset }
        public static func < (a: TestClock.Instant, b: TestClock.Instant) -> Bool { a.offset < b.offset }
        public var description: String { "\(offset)" }
    }
}

/// A `Clock` on the ``TestScheduler``'s virtual time: `sleep(until:)` parks the task until
/// virtual time reaches the deadline. Sleepers wake in (deadline, registration) order, each
/// one's work running to completion before the next wakes.
///
/// Use it from the code the scheduler runs: the test's structured tasks (those `expect` starts,
/// their task-group children and `async let`s), and `Task { }`/`Task.detached` started inside
/// `scheduler.run { }` or from that code, which run on the scheduler's executor too. A sleep
/// from another thread (work on a `DispatchQueue`, an actor with an executor of its own, a task
/// started outside the run) is refused with `CancellationError`, and the test fails saying that
/// work escaped the scheduler.
public final class TestClock: Clock, @unchecked Sendable {
    /// Instants are virtual offsets from the scheduler's start.
    /// Durations are Swift's.
    public typealias Duration = Swift.Duration

    private struct Sleeper {
        var continuation: UnsafeContinuation<Void, any Error>
    }

    // The scheduler is touched only from its own thread (checked); sleepers and the escape
    // log are guarded by `lock`, since cancellation handlers run on any thread.
    private weak var scheduler: TestScheduler?
    private let runtime: VirtualRuntime
    private let executor: TestTaskExecutor
    /// Virtual time as of the scheduler's last step, for reads from other threads.
    private let publishedNow: ManagedAtomic<Int64>
    private let lock = Lock()
    private var sleepers: [UInt64: Sleeper] = [:]
    private var cancelledEarly: Set<UInt64> = []
    private var nextID: UInt64 = 0
    private var foreignSleeps = 0

    init(scheduler: TestScheduler) {
        self.scheduler = scheduler
        self.runtime = scheduler.runtime
        self.executor = scheduler.executor
        self.publishedNow = scheduler.runtime.publishNow()
    }

    /// Virtual now. From another thread this is the time of the last virtual step (and the
    /// access is recorded as an escape).
    public var now: TestClock.Instant {
        if executor.isOwnerThread, let scheduler {
            return TestClock.Instant(offset: scheduler.now)
        }
        lock.withLock { foreignSleeps += 1 }
        return TestClock.Instant(offset: .nanoseconds(publishedNow.load(ordering: .relaxed)))
    }

    /// One nanosecond: virtual time is exact.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Sleeps and other clock use from threads other than the scheduler's.
    var foreignAccessCount: Int { lock.withLock { foreignSleeps } }

    /// Parks the calling task until virtual time reaches `deadline`; `tolerance` is ignored (virtual time is exact). Throws `CancellationError` when the task is cancelled, or when called from a thread the scheduler does not own.
    public func sleep(until deadline: TestClock.Instant, tolerance: Duration? = nil) async throws {
        guard executor.isOwnerThread, let scheduler else {
            lock.withLock { foreignSleeps += 1 }
            throw CancellationError()
        }
        try Task.checkCancellation()
        executor.chooser?.noteCurrentTaskName()
        let id: UInt64 = lock.withLock {
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                let cancelled: Bool = lock.withLock {
                    if cancelledEarly.remove(id) != nil { return true }
                    sleepers[id] = Sleeper(continuation: continuation)
                    return false
                }
                if cancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                // Due now or earlier still goes through the queue, so wake order stays
                // (deadline, registration).
                runtime.scheduleWake(at: max(deadline.offset, scheduler.now)) { [self] in wake(id, with: nil) }
            }
        } onCancel: {
            let parked: Sleeper? = lock.withLock {
                if let sleeper = sleepers.removeValue(forKey: id) { return sleeper }
                cancelledEarly.insert(id)
                return nil
            }
            parked?.continuation.resume(throwing: CancellationError())
        }
    }

    private func wake(_ id: UInt64, with error: (any Error)?) {
        guard let sleeper = lock.withLock({ sleepers.removeValue(forKey: id) }) else { return }
        if let error { sleeper.continuation.resume(throwing: error) } else { sleeper.continuation.resume() }
    }

    /// Resumes every parked sleeper with `CancellationError` (teardown: nothing leaks).
    func cancelAll() {
        let parked: [Sleeper] = lock.withLock {
            defer {
                sleepers.removeAll()
                cancelledEarly.removeAll()
            }
            return sleepers.sorted { $0.key < $1.key }.map(\.value)
        }
        for sleeper in parked { sleeper.continuation.resume(throwing: CancellationError()) }
    }
}
