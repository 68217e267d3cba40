import Atomics
import MarbleCore
// `SchedulingExecutor` and the `enqueue(_:after:tolerance:clock:)` / `enqueue(_:at:tolerance:clock:)`
// requirements it adds are SPI (ExperimentalScheduling); `Task.defaultExecutor` and `ExecutorJob`
// from an `UnownedJob` are SPI (ExperimentalCustomExecutors). Checked on Swift 6.3.1
// (swift-6.3.1-RELEASE, Linux): `SchedulingExecutor` is what puts `Task.sleep` of our tasks on
// virtual time; without it sleeps come through the runtime's delay and deadline hooks.
@_spi(ExperimentalScheduling) @_spi(ExperimentalCustomExecutors) import _Concurrency

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The task executor a ``TestScheduler`` runs async work on: a FIFO of jobs that only the
/// scheduler's thread runs, one at a time, between virtual-time steps.
///
/// Three kinds of jobs share the one FIFO, so their order is the order they were enqueued:
/// jobs of tasks that prefer this executor, unstructured tasks routed here by the runtime hooks
/// (``RuntimeRoute``) from the driving thread, main-actor jobs (from ``MainActorStandIn``),
/// and sleepers whose virtual deadline came (`Task.sleep` on the system clocks, see
/// ``SleepDeadline``).
///
/// Jobs arriving from another thread are still queued (they belong to our tasks), but counted:
/// they mean some work ran outside the scheduler (a `DispatchQueue`, a custom executor), which
/// makes timing racy, and the scheduler fails the test when it sees any.
package final class TestTaskExecutor: @unchecked Sendable {
    /// A queued job, and whether it runs isolated to the main actor.
    package struct Queued {
        package var job: UnownedJob
        package var onMainActor: Bool
    }

    /// Guards `jobs`, `head`, `seenJobs` and the escape counts (rare: they mean a failure).
    private let lock = Lock()
    private var jobs: [Queued] = []
    private var head = 0
    private var seenJobs = false
    private var foreignEnqueues = 0
    private var foreignEmissions = 0
    private var mainActorEscapes = 0
    /// `seenJobs` as the owner thread last read it: once true it stays true, so the driver's
    /// loop stops taking the lock to ask.
    private var ownerSawJobs = false
    /// The thread that runs jobs (read on every sleep and clock use).
    private let owner = ManagedAtomic<Int>(0)
    /// Jobs waiting: lets the scheduler's loop skip the lock between steps when there are none.
    private let waiting = ManagedAtomic<Int>(0)
    /// `MainActor`'s executor on the driving thread.
    package private(set) lazy var mainActor = MainActorStandIn(executor: self)
    /// Whether the thread driving the scheduler runs on the main actor (set when it starts
    /// driving): main-actor jobs then run in the scheduler's loop.
    var drivesOnMainActor = false

    /// Whether any job was ever enqueued: the scheduler then notes the real time at which each
    /// virtual instant starts, the bound a sleep's deadline is read against. Asked by the owner
    /// thread only.
    var hasSeenJobs: Bool {
        if !ownerSawJobs { ownerSawJobs = lock.withLock { seenJobs } }
        return ownerSawJobs
    }

    /// The runtime that puts this executor's sleepers on virtual time and notes its first job
    /// (set by the runtime, cleared when it goes: the executor may outlive it, tasks keep it).
    /// A reference, not closures: three closure contexts a test fewer.
    unowned var runtime: VirtualRuntime?
    /// Whether to note the real time each job starts at (clocks read back: a sleep's deadline is
    /// bounded by the age of the job that sleeps).
    var notesJobStarts = false
    /// The real time the running job started at, when noted.
    private(set) var currentJobStart: ContinuousClock.Instant?
    /// When exploring schedules: picks which ready job runs next (else the oldest).
    package var chooser: (any ScheduleChoosing)?

    init() { owner.store(Self.currentThread, ordering: .releasing) }

    /// The calling thread's identity as a number.
    private static var currentThread: Int {
        #if canImport(Darwin)
            Int(bitPattern: UInt(bitPattern: pthread_self()))
        #else
            Int(bitPattern: UInt(pthread_self()))
        #endif
    }

    /// Makes the calling thread the one that runs jobs.
    package func adoptCurrentThread() { owner.store(Self.currentThread, ordering: .releasing) }

    /// Whether the caller is the thread that runs jobs.
    package var isOwnerThread: Bool { owner.load(ordering: .acquiring) == Self.currentThread }

    /// Queues a job the global-enqueue hook routed here (a `Task { }` started on the driver thread).
    package func enqueueRouted(_ job: UnownedJob) { enqueue(Queued(job: job, onMainActor: false), routed: true) }

    /// Queues a main-actor job (the test runs on the main actor).
    func enqueueMainActor(_ job: UnownedJob) { enqueue(Queued(job: job, onMainActor: true), routed: false) }

    fileprivate func enqueue(_ queued: Queued, routed: Bool) {
        // Routed jobs come from the driving thread (the hooks route by thread); others may not.
        let onOwnerThread = routed || isOwnerThread
        let first: Bool = lock.withLock {
            let first = !seenJobs
            seenJobs = true
            if !onOwnerThread { foreignEnqueues += 1 }
            if let chooser, onOwnerThread { chooser.noteReady(queued.job) }
            // Room for a few at once: growing from empty reallocated three times in a short async test.
            if jobs.capacity == 0 { jobs.reserveCapacity(16) }
            jobs.append(queued)
            waiting.wrappingIncrement(by: 1, ordering: .releasing)
            return first
        }
        // The first async work: from now on the scheduler notes when each instant begins; for
        // this one, a clock read by the work is later than now.
        if first, onOwnerThread { runtime?.noteFirstJob() }
    }

    /// Jobs enqueued from other threads so far.
    package var foreignEnqueueCount: Int { lock.withLock { foreignEnqueues } }

    /// Whether any job waits (one atomic load: the driver's loop asks between every two steps).
    @inline(__always) package var hasWaitingJobs: Bool { waiting.load(ordering: .acquiring) > 0 }

    /// Runs queued jobs, including those they enqueue, until none is left or `limit` ran.
    /// - Returns: how many ran.
    package func runUntilIdle(limit: Int) -> Int {
        var ran = 0
        while ran < limit, waiting.load(ordering: .acquiring) > 0, let queued = next() {
            if notesJobStarts { currentJobStart = .now }
            if queued.onMainActor {
                queued.job.runSynchronously(on: mainActor.asUnownedSerialExecutor())
            } else if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) {
                queued.job.runSynchronously(on: asUnownedTaskExecutor())
            } else {
                // Before task executors, only the hooks route jobs here (`Task { }` from the
                // driving thread): they run on the stand-in's serial executor, a context that
                // isolates nothing.
                queued.job.runSynchronously(on: mainActor.asUnownedSerialExecutor())
            }
            ran += 1
        }
        return ran
    }

    private func next() -> Queued? {
        lock.withLock {
            guard head < jobs.count else {
                if head > 0 {
                    jobs.removeAll(keepingCapacity: true)
                    head = 0
                }
                return nil
            }
            waiting.wrappingDecrement(by: 1, ordering: .relaxed)
            if let chooser, jobs.count - head > 1 {
                let pick = chooser.pickJob(among: jobs[head...])
                if pick > 0 { return jobs.remove(at: head + pick) }
            }
            defer { head += 1 }
            return jobs[head]
        }
    }

    /// A sleep that reached the runtime's delay hook (exact) or deadline hook (read back).
    func enqueueHookedSleep(_ job: UnownedJob, remaining: Duration, isDeadline: Bool) {
        guard let runtime else { return }
        if isDeadline {
            runtime.scheduleReadBackSleep(job, remaining: remaining, at: .now, clock: nil)
        } else {
            runtime.scheduleExactSleep(job, remaining, clock: nil)
        }
    }

    /// Emissions of an async expectation from another thread (dropped, reported).
    package func noteForeignEmission() { lock.withLock { foreignEmissions += 1 } }
    package var foreignEmissionCount: Int { lock.withLock { foreignEmissions } }

    /// A main-actor job sent to the real main queue (the test does not run on the main actor).
    func noteMainActorEscape() { lock.withLock { mainActorEscapes += 1 } }
    /// Main-actor jobs sent to the real main queue so far.
    var mainActorEscapeCount: Int { lock.withLock { mainActorEscapes } }
}

/// The exploration hook-in: what picks the order of same-instant work when schedules are
/// explored (Marbles' `ScheduleChooser`). Called on the scheduler's thread only.
package protocol ScheduleChoosing: AnyObject {
    /// A job made ready on the scheduler's thread, in order.
    func noteReady(_ job: UnownedJob)
    /// Which of the ready jobs runs next (0: the oldest).
    func pickJob(among ready: ArraySlice<TestTaskExecutor.Queued>) -> Int
    /// Whether a sleeper due now wakes with the `others` due at the same instant.
    func wakesTogether(others: Int) -> Bool
    /// Notes the running task's name, for the deviations' descriptions.
    func noteCurrentTaskName()
}

// What tasks that prefer this executor enqueue (`Task(executorPreference:)`, the async
// expectations): task executors arrived with macOS 15 / iOS 18.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension TestTaskExecutor: TaskExecutor {
    package func enqueue(_ job: consuming ExecutorJob) {
        enqueue(Queued(job: UnownedJob(job), onMainActor: false), routed: false)
    }
}

// Swift 6.3's `Task.sleep` and `ContinuousClock`/`SuspendingClock.sleep(until:)` hand their
// sleeper to the current task's scheduling executor (they reach the runtime's delay and deadline
// hooks only when there is none): being one is what puts the sleeps of our tasks on virtual time.
#if compiler(>=6.3)
    @available(macOS 26.4, iOS 26.4, watchOS 26.4, tvOS 26.4, visionOS 26.4, *)
    extension TestTaskExecutor: SchedulingExecutor {
        package func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
            let unowned = UnownedJob(job)
            chooser?.noteCurrentTaskName()
            guard isOwnerThread, let runtime, let duration = delay as? Duration else {
                return forward(unowned) { $0.enqueue(ExecutorJob(unowned), after: delay, tolerance: tolerance, clock: clock) }
            }
            runtime.scheduleExactSleep(unowned, duration, clock: C.self)
        }

        package func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
            let unowned = UnownedJob(job)
            chooser?.noteCurrentTaskName()
            guard isOwnerThread, let runtime else {
                return forward(unowned) { $0.enqueue(ExecutorJob(unowned), at: instant, tolerance: tolerance, clock: clock) }
            }
            let remaining: Duration
            let real = ContinuousClock.now
            // Type checks, not casts: a dynamic cast per sleep costs more than the rest of it.
            if C.self == ContinuousClock.self {
                remaining = real.duration(to: unsafeBitCast(instant, to: ContinuousClock.Instant.self))
            } else if C.self == SuspendingClock.self {
                remaining = SuspendingClock.now.duration(to: unsafeBitCast(instant, to: SuspendingClock.Instant.self))
            } else if let duration = clock.now.duration(to: instant) as? Duration {
                remaining = duration
            } else {
                return forward(unowned) { $0.enqueue(ExecutorJob(unowned), at: instant, tolerance: tolerance, clock: clock) }
            }
            runtime.scheduleReadBackSleep(unowned, remaining: remaining, at: real, clock: C.self)
        }

        /// A sleep this executor cannot put on virtual time (from another thread, on a clock with
        /// other durations) goes where it would have gone without us.
        private func forward(_ job: UnownedJob, _ enqueue: (any SchedulingExecutor) -> Void) {
            lock.withLock { foreignEnqueues += 1 }
            if let platform = Task.defaultExecutor as? any SchedulingExecutor {
                enqueue(platform)
            } else {
                Task.defaultExecutor.enqueue(ExecutorJob(job))
            }
        }
    }
#endif
