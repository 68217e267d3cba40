import Atomics
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
/// (``GlobalEnqueueHook``) from the driving thread, main-actor jobs (from ``MainActorStandIn``),
/// and sleepers whose virtual deadline came (`Task.sleep` on the system clocks, see
/// ``SleepDeadline``).
///
/// Jobs arriving from another thread are still queued (they belong to our tasks), but counted:
/// they mean some work ran outside the scheduler (a `DispatchQueue`, a custom executor), which
/// makes timing racy, and the scheduler fails the test when it sees any.
final class TestTaskExecutor: @unchecked Sendable {
    /// A queued job, and whether it runs isolated to the main actor.
    struct Queued {
        var job: UnownedJob
        var onMainActor: Bool
    }

    // The executor's five atomic counters and its mutex, in the object itself (a test's fixed
    // cost counts allocations): the owner thread, jobs waiting (lets the scheduler's loop skip
    // the lock between steps when there are none), main-actor escapes, whether any job came,
    // emissions from other threads; then the mutex. The first stored property of this root
    // class, addressed as MarbleCore's `Lock` and inline atomics are (`firstStoredProperty`).
    private var inlineStorage:
        (
            UnsafeAtomic<Int>.Storage, UnsafeAtomic<Int>.Storage, UnsafeAtomic<Int>.Storage, UnsafeAtomic<Int>.Storage,
            UnsafeAtomic<Int>.Storage, InlineMutex.Storage
        ) = (.init(0), .init(0), .init(0), .init(0), .init(0), InlineMutex.Storage())
    private var atomics: UnsafeMutablePointer<UnsafeAtomic<Int>.Storage> {
        firstStoredProperty(of: self, as: UnsafeAtomic<Int>.Storage.self)
    }
    private var mutexStorage: UnsafeMutablePointer<InlineMutex.Storage> {
        UnsafeMutableRawPointer(atomics + 5).assumingMemoryBound(to: InlineMutex.Storage.self)
    }
    private var mutex: InlineMutex { InlineMutex(at: mutexStorage) }

    // `jobs` and `foreignEnqueues` are guarded by the mutex; the owner thread's identity is an
    // atomic, read on every sleep and clock use. The other state is the owner thread's. None of
    // it is in overlapping accesses: the runtime's exclusivity checks (some on every job) are off.
    @exclusivity(unchecked) private var jobs: [Queued] = []
    @exclusivity(unchecked) private var head = 0
    @exclusivity(unchecked) private var foreignEnqueues = 0
    private var owner: UnsafeAtomic<Int> { UnsafeAtomic(at: atomics) }
    private var waiting: UnsafeAtomic<Int> { UnsafeAtomic(at: atomics + 1) }
    /// Emissions through a `TestScheduler.AsyncEmitter` from other threads.
    var foreignEmissions: UnsafeAtomic<Int> { UnsafeAtomic(at: atomics + 4) }
    /// Main-actor jobs sent to the real main queue because the test does not run on the main actor.
    var mainActorEscapes: UnsafeAtomic<Int> { UnsafeAtomic(at: atomics + 2) }
    /// `MainActor`'s executor on the driving thread.
    private(set) lazy var mainActor = MainActorStandIn(executor: self)
    /// Whether the thread driving the scheduler runs on the main actor (set when it starts
    /// driving): main-actor jobs then run in the scheduler's loop.
    @exclusivity(unchecked) var drivesOnMainActor = false

    /// Whether any job was ever enqueued: the scheduler then notes the real time at which each
    /// virtual instant starts, the bound a sleep's deadline is read against.
    var hasSeenJobs: Bool {
        get { UnsafeAtomic<Int>(at: atomics + 3).load(ordering: .relaxed) != 0 }
        set { UnsafeAtomic<Int>(at: atomics + 3).store(newValue ? 1 : 0, ordering: .relaxed) }
    }

    /// The runtime that puts this executor's sleepers on virtual time and notes its first job
    /// (set by the runtime, cleared when it goes: the executor may outlive it, tasks keep it).
    /// A reference, not closures: three closure contexts a test fewer.
    unowned(unsafe) var runtime: VirtualRuntime?
    /// Whether to note the real time each job starts at (clocks read back: a sleep's deadline is
    /// bounded by the age of the job that sleeps).
    @exclusivity(unchecked) var notesJobStarts = false
    /// The real time the running job started at, when noted.
    @exclusivity(unchecked) private(set) var currentJobStart: ContinuousClock.Instant?
    /// When exploring schedules: picks which ready job runs next (else the oldest).
    @exclusivity(unchecked) var chooser: ScheduleChooser?

    init() {
        assert(isFirstStoredProperty(of: self, &inlineStorage))
        assert(isAt(mutexStorage, &inlineStorage.5))
        mutex.initialize()
        owner.store(Self.currentThread, ordering: .releasing)
    }

    deinit { mutex.destroy() }

    private func isAt<T>(_ pointer: UnsafeMutablePointer<T>, _ property: UnsafeMutablePointer<T>) -> Bool { pointer == property }

    private func withLock<R>(_ body: () throws -> R) rethrows -> R {
        mutex.lock()
        defer { mutex.unlock() }
        return try body()
    }

    /// The calling thread's identity as a number.
    private static var currentThread: Int {
        #if canImport(Darwin)
            Int(bitPattern: UInt(bitPattern: pthread_self()))
        #else
            Int(bitPattern: UInt(pthread_self()))
        #endif
    }

    /// Makes the calling thread the one that runs jobs.
    func adoptCurrentThread() { owner.store(Self.currentThread, ordering: .releasing) }

    /// Whether the caller is the thread that runs jobs.
    var isOwnerThread: Bool { owner.load(ordering: .acquiring) == Self.currentThread }

    /// Queues a job the global-enqueue hook routed here (a `Task { }` started on the driver thread).
    func enqueueRouted(_ job: UnownedJob) { enqueue(Queued(job: job, onMainActor: false), routed: true) }

    /// Queues a main-actor job (the test runs on the main actor).
    func enqueueMainActor(_ job: UnownedJob) { enqueue(Queued(job: job, onMainActor: true), routed: false) }

    fileprivate func enqueue(_ queued: Queued, routed: Bool) {
        if !hasSeenJobs {
            hasSeenJobs = true
            // The first async work: from now on the scheduler notes when each instant begins; for
            // this one, a clock read by the work is later than now.
            if isOwnerThread { runtime?.noteFirstJob() }
        }
        withLock {
            if !routed, owner.load(ordering: .acquiring) != Self.currentThread { foreignEnqueues += 1 }
            if let chooser, isOwnerThread { chooser.readyLog.append(unsafeBitCast(queued.job, to: UnsafeMutableRawPointer.self)) }
            // Room for a few at once: growing from empty reallocated three times in a short async test.
            if jobs.capacity == 0 { jobs.reserveCapacity(16) }
            jobs.append(queued)
            waiting.wrappingIncrement(by: 1, ordering: .releasing)
        }
    }

    /// Jobs enqueued from other threads so far.
    var foreignEnqueueCount: Int { withLock { foreignEnqueues } }

    /// Whether any job waits (one atomic load: the driver's loop asks between every two steps).
    @inline(__always) var hasWaitingJobs: Bool { waiting.load(ordering: .acquiring) > 0 }

    /// Runs queued jobs, including those they enqueue, until none is left or `limit` ran.
    /// - Returns: how many ran.
    func runUntilIdle(limit: Int) -> Int {
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
        withLock {
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

    /// A sleep that reached the runtime as a delay or a deadline (the C hooks' path).
    func enqueueSleep(_ job: UnownedJob, remaining: Duration, isDeadline: Bool) {
        runtime?.scheduleSleep(job, exact: isDeadline ? nil : remaining, remaining: remaining, at: .now, clock: nil)
    }
}

// What tasks that prefer this executor enqueue (`Task(executorPreference:)`, the async
// expectations): task executors arrived with macOS 15 / iOS 18.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension TestTaskExecutor: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        enqueue(Queued(job: UnownedJob(job), onMainActor: false), routed: false)
    }
}

// Swift 6.3's `Task.sleep` and `ContinuousClock`/`SuspendingClock.sleep(until:)` hand their
// sleeper to the current task's scheduling executor (they reach the runtime's delay and deadline
// hooks only when there is none): being one is what puts the sleeps of our tasks on virtual time.
#if compiler(>=6.3)
    @available(macOS 26.4, iOS 26.4, watchOS 26.4, tvOS 26.4, visionOS 26.4, *)
    extension TestTaskExecutor: SchedulingExecutor {
        func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
            let unowned = UnownedJob(job)
            chooser?.noteCurrentTaskName()
            guard isOwnerThread, let runtime, let duration = delay as? Duration else {
                return forward(unowned) { $0.enqueue(ExecutorJob(unowned), after: delay, tolerance: tolerance, clock: clock) }
            }
            runtime.scheduleSleep(unowned, exact: duration, remaining: duration, at: .now, clock: C.self)
        }

        func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
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
            runtime.scheduleSleep(unowned, exact: nil, remaining: remaining, at: real, clock: C.self)
        }

        /// A sleep this executor cannot put on virtual time (from another thread, on a clock with
        /// other durations) goes where it would have gone without us.
        private func forward(_ job: UnownedJob, _ enqueue: (any SchedulingExecutor) -> Void) {
            withLock { foreignEnqueues += 1 }
            if let platform = Task.defaultExecutor as? any SchedulingExecutor {
                enqueue(platform)
            } else {
                Task.defaultExecutor.enqueue(ExecutorJob(job))
            }
        }
    }
#endif
