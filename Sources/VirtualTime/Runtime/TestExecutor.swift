import Atomics
internal import CRuntimeHooks
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
/// Jobs arriving from another thread (a continuation resumed on a queue, an actor's job done on
/// its own executor) are held apart until the driver takes them, at the end of an instant (see
/// ``ForeignWork``). Those that came from work nobody tracked are counted: they mean some work
/// ran outside the scheduler unseen, which makes timing racy, and the scheduler fails the test.
package final class TestTaskExecutor: @unchecked Sendable {
    // The executor's atomics and mutex, in the object (its first stored property: see
    // InlineAtomic.swift), each reached through a named field's place.
    // measured: in allocations of their own (a Lock and two ManagedAtomics), an empty run took
    // 1.30× and a 10-event test 1.26× the time of 40fe785; inline, 0.95× and 1.06× (the rest was
    // MessageReplay.progress) (scripts/profile-ab.py, release, min of 7).
    private var inline = Inline()

    /// A queued job, and whether it runs isolated to the main actor.
    package struct Queued {
        package var job: UnownedJob
        package var onMainActor: Bool
    }

    private struct Inline {
        /// The thread that runs jobs (read on every sleep and clock use).
        var owner = UnsafeAtomic<Int>.Storage(0)
        /// Jobs waiting: lets the scheduler's loop skip the lock between steps when there are none.
        var waiting = UnsafeAtomic<Int>.Storage(0)
        /// 1 once any job was enqueued or main-actor work escaped.
        var seen = UnsafeAtomic<Int>.Storage(0)
        /// Jobs back from other threads, not taken yet (the driver's loop asks between steps).
        var returned = UnsafeAtomic<Int>.Storage(0)
        /// Guards ``queue``.
        var mutex = InlineMutex.Storage()

        /// Each field's place, in atomics from the start: constants (a `static let` computed
        /// from `MemoryLayout.offset(of:)` costs a `swift_once` check at every use, measured in
        /// `Task.sleep`'s path); ``layoutHolds`` checks them against the real layout.
        static let owner = 0, waiting = 1, seen = 2, returned = 3, mutex = 4
        static let layoutHolds: Bool = {
            let stride = MemoryLayout<UnsafeAtomic<Int>.Storage>.stride
            return MemoryLayout<Inline>.offset(of: \.owner) == owner * stride
                && MemoryLayout<Inline>.offset(of: \.waiting) == waiting * stride
                && MemoryLayout<Inline>.offset(of: \.seen) == seen * stride
                && MemoryLayout<Inline>.offset(of: \.returned) == returned * stride
                && MemoryLayout<Inline>.offset(of: \.mutex) == mutex * stride
        }()
    }

    // measured: see `inline` above; the places as constants, Task.sleep's path 1.070× → 0.942×
    // the time of 40fe785 (a static let from MemoryLayout.offset(of:) cost a swift_once a use).
    private var atomics: UnsafeMutablePointer<UnsafeAtomic<Int>.Storage> {
        firstStoredProperty(of: self, as: UnsafeAtomic<Int>.Storage.self)
    }
    private var owner: UnsafeAtomic<Int> { UnsafeAtomic(at: atomics + Inline.owner) }
    private var waiting: UnsafeAtomic<Int> { UnsafeAtomic(at: atomics + Inline.waiting) }
    private var seen: UnsafeAtomic<Int> { UnsafeAtomic(at: atomics + Inline.seen) }
    private var returned: UnsafeAtomic<Int> { UnsafeAtomic(at: atomics + Inline.returned) }

    /// Where the count of jobs back from other threads lives (an atomic Int), for the driver's
    /// wait in C.
    var returnedCountAddress: UnsafeRawPointer { UnsafeRawPointer(atomics + Inline.returned) }

    /// Whether the runtime went: a job that runs now is late (its test is over), and the test's
    /// own closures (recording, reporting) must not touch the scheduler.
    package var isDetached: Bool { owner.load(ordering: .acquiring) == Self.noOwner }
    private var mutex: InlineMutex {
        InlineMutex(at: UnsafeMutableRawPointer(atomics + Inline.mutex).assumingMemoryBound(to: InlineMutex.Storage.self))
    }

    private func withLock<R>(_ body: () throws -> R) rethrows -> R {
        mutex.lock()
        defer { mutex.unlock() }
        return try body()
    }
    /// The jobs and the counts that other threads touch too, under `lock`.
    private struct Queue {
        var jobs: [Queued] = []
        var head = 0
        /// Jobs back from other threads, with the sequence of the tracked work they came from
        /// (-1: untracked), in arrival order.
        var returned: [(sequence: Int64, job: Queued)] = []
        /// Escapes (rare: they mean a failure).
        var foreignEnqueues = 0
        var foreignEmissions = 0
        var mainActorEscapes = 0
        /// `MainActor`'s executor on the driving thread, made on first use.
        var standIn: MainActorStandIn?
    }
    /// What only the owner thread (the driver) reads and writes.
    private struct DriverState {
        var drivesOnMainActor = false
        /// Made only where clocks are read back (not on Linux): a resilient `ContinuousClock.Instant`
        /// here would be made and destroyed through value witnesses by every executor.
        var jobStarts: JobStarts?
        var chooser: (any ScheduleChoosing)?
    }
    /// When the current job started, in real time.
    private final class JobStarts {
        var current: ContinuousClock.Instant?
    }
    // Both are read on every job and step; each is one stored property, never in overlapping
    // accesses (the queue under the lock, the driver's on its thread).
    // measured: see TestScheduler.state (the harness's, the runtime's, the clocks' and these).
    @exclusivity(unchecked) private var queue = Queue()
    @exclusivity(unchecked) private var driver = DriverState()
    /// `MainActor`'s executor on the driving thread, made the first time the runtime asks (on the
    /// driving thread). It is never freed (see ``MainActorStandIn``).
    package var mainActor: MainActorStandIn {
        withLock {
            if let standIn = queue.standIn { return standIn }
            let standIn = MainActorStandIn(executor: self)
            queue.standIn = standIn
            seen.store(1, ordering: .releasing)
            return standIn
        }
    }
    /// Whether the thread driving the scheduler runs on the main actor (set when it starts
    /// driving): main-actor jobs then run in the scheduler's loop.
    var drivesOnMainActor: Bool {
        get { driver.drivesOnMainActor }
        set { driver.drivesOnMainActor = newValue }
    }

    /// Whether any job was ever enqueued: the scheduler then notes the real time at which each
    /// virtual instant starts, the bound a sleep's deadline is read against. Asked by the owner
    /// thread only.
    var hasSeenJobs: Bool { seen.load(ordering: .relaxed) != 0 }

    /// The runtime that puts this executor's sleepers on virtual time and notes its first job
    /// (set by the runtime, cleared when it goes: the executor may outlive it, tasks keep it).
    /// A reference, not closures: three closure contexts a test fewer.
    // Not weak (a weak reference gives the runtime a side table); the runtime clears it in its
    // deinit, and only the owner thread reads it.
    // measured: with safe `unowned` here, in VirtualClocks.runtime and MessageReplay.virtual, an
    // empty run took 1.24×, a 10-event test 1.19× and an async test 1.25× the time of 40fe785;
    // unowned(unsafe), 0.95× each (scripts/profile-ab.py, release, min of 7).
    unowned(unsafe) var runtime: VirtualRuntime?
    /// Whether to note the real time each job starts at (clocks read back: a sleep's deadline is
    /// bounded by the age of the job that sleeps).
    var notesJobStarts: Bool {
        get { driver.jobStarts != nil }
        set {
            guard newValue != (driver.jobStarts != nil) else { return }
            driver.jobStarts = newValue ? JobStarts() : nil
        }
    }
    /// The real time the running job started at, when noted.
    var currentJobStart: ContinuousClock.Instant? { driver.jobStarts?.current }
    /// When exploring schedules: picks which ready job runs next (else the oldest).
    package var chooser: (any ScheduleChoosing)? {
        get { driver.chooser }
        set { driver.chooser = newValue }
    }

    init() {
        // Checked in release builds too: once a scheduler, not once a job.
        precondition(isFirstStoredProperty(of: self, &inline) && Inline.layoutHolds, "TestTaskExecutor's inline layout changed")
        mutex.initialize()
        owner.store(Self.currentThread, ordering: .releasing)
    }

    deinit { mutex.destroy() }

    /// The calling thread's identity as a number.
    private static var currentThread: Int {
        #if canImport(Darwin)
            Int(bitPattern: UInt(bitPattern: pthread_self()))
        #else
            Int(bitPattern: UInt(pthread_self()))
        #endif
    }

    /// The owner once the runtime went (``detach()``): no thread's identity.
    private static let noOwner = -1

    /// Makes the calling thread the one that runs jobs.
    package func adoptCurrentThread() { owner.store(Self.currentThread, ordering: .releasing) }

    /// Whether the caller is the thread that runs jobs.
    package var isOwnerThread: Bool { owner.load(ordering: .acquiring) == Self.currentThread }

    /// Queues a job the global-enqueue hook routed here (a `Task { }` started on the driver thread).
    package func enqueueRouted(_ job: UnownedJob) { enqueue(Queued(job: job, onMainActor: false), routed: true) }

    /// Queues a main-actor job (from ``MainActorStandIn``): on the driving thread of a test on the
    /// main actor, in the FIFO; from another thread, held for the driver, which runs it in its
    /// loop (or, when its test is not on the main actor, sends it to the real main queue).
    func enqueueMainActor(_ job: UnownedJob) {
        guard isOwnerThread else { return enqueueReturned(Queued(job: job, onMainActor: true)) }
        guard driver.drivesOnMainActor else {
            noteMainActorEscape()
            return marbles_enqueue_past_hooks(jobPointer(job), true)
        }
        enqueue(Queued(job: job, onMainActor: true), routed: true)
    }

    fileprivate func enqueue(_ queued: Queued, routed: Bool) {
        // Routed jobs come from the driving thread (the hooks route by thread); others may not.
        guard routed || isOwnerThread else { return enqueueReturned(queued) }
        let first = seen.load(ordering: .relaxed) == 0 && seen.exchange(1, ordering: .relaxed) == 0
        let queuedHere = withLock { () -> Bool in
            guard !isDetached else { return false }
            if let chooser = driver.chooser { chooser.noteReady(queued.job) }
            // Room for a few at once: growing from empty reallocated three times in a short async test.
            if queue.jobs.capacity == 0 { queue.jobs.reserveCapacity(16) }
            queue.jobs.append(queued)
            waiting.wrappingIncrement(by: 1, ordering: .releasing)
            return true
        }
        guard queuedHere else { return Self.sendElsewhere(queued) }
        // The first async work: from now on the scheduler notes when each instant begins; for
        // this one, a clock read by the work is later than now.
        if first { runtime?.noteFirstJob() }
    }

    /// A job that tracked work on another thread enqueued for the global executor: held for the
    /// driver like any job back from another thread.
    func enqueueReturned(_ job: UnownedJob) { enqueueReturned(Queued(job: job, onMainActor: false)) }

    /// A job from another thread: held until the driver takes it (``takeReturned()``).
    private func enqueueReturned(_ queued: Queued) {
        let sequence = marbles_members_current_sequence()
        seen.store(1, ordering: .relaxed)
        let held = withLock { () -> Bool in
            guard !isDetached else { return false }
            if sequence < 0 { queue.foreignEnqueues += 1 }
            queue.returned.append((sequence, queued))
            returned.wrappingIncrement(by: 1, ordering: .releasing)
            return true
        }
        if !held { Self.sendElsewhere(queued) }
    }

    /// The jobs from threads the run did not start that are held now came back while nothing
    /// else was left on virtual time (the driver waited for them): answers at this instant, not
    /// racy escapes.
    func acceptUntrackedAnswers() {
        withLock {
            let answers = queue.returned.reduce(0) { $0 + ($1.0 < 0 ? 1 : 0) }
            queue.foreignEnqueues -= min(answers, queue.foreignEnqueues)
        }
    }

    /// Where a job goes once the runtime is gone: the real main executor for main-actor jobs,
    /// the global executor for the rest (past the hooks: no test scheduler takes it).
    private static func sendElsewhere(_ queued: Queued) {
        let job = jobPointer(queued.job)
        marbles_enqueue_past_hooks(job, queued.onMainActor)
    }

    /// The runtime is going: the stand-in lets go of this executor, and jobs queued or held and
    /// jobs that arrive later take their usual paths, so that nothing of the test reaches it
    /// after it is gone and nothing is dropped. (Tasks that prefer this executor keep it alive.)
    func detach() {
        // No thread owns it from now on: no thread passes `isOwnerThread`, so nothing reads the
        // runtime again, and what is enqueued under the lock after this goes elsewhere.
        owner.store(Self.noOwner, ordering: .releasing)
        // No job ever came and no stand-in was made (a test of observables): nothing is queued
        // and nothing refers to this executor, so no lock.
        guard seen.load(ordering: .acquiring) != 0 else { return }
        var left: [Queued] = []
        let standIn = withLock { () -> MainActorStandIn? in
            // Most tests leave nothing queued: no arrays made for them.
            if queue.head < queue.jobs.count || !queue.returned.isEmpty {
                left = Array(queue.jobs[queue.head...]) + queue.returned.map(\.job)
                queue.jobs.removeAll()
                queue.head = 0
                queue.returned.removeAll()
                waiting.store(0, ordering: .releasing)
                returned.store(0, ordering: .releasing)
            }
            return queue.standIn
        }
        standIn?.detach()
        for queued in left { Self.sendElsewhere(queued) }
    }

    /// Whether jobs came back from other threads and wait to be taken (one atomic load).
    @inline(__always) var hasReturnedJobs: Bool { returned.load(ordering: .acquiring) > 0 }

    /// Queues the jobs back from other threads, ordered by the work they came from (untracked
    /// ones last, in arrival order), so that which thread was faster does not show.
    /// Main-actor jobs are taken only when the test runs on the main actor; otherwise they go to
    /// the real main queue and count as escapes.
    func takeReturned() {
        let onMainActor = driver.drivesOnMainActor
        let escaped = withLock { () -> [Queued] in
            guard !queue.returned.isEmpty else { return [] }
            let returned = ForeignWork.inSubmissionOrder(queue.returned, sequence: \.sequence)
            queue.returned.removeAll(keepingCapacity: true)
            var escaped: [Queued] = []
            for (_, queued) in returned {
                if queued.onMainActor && !onMainActor {
                    escaped.append(queued)
                    continue
                }
                if let chooser = driver.chooser { chooser.noteReady(queued.job) }
                queue.jobs.append(queued)
            }
            waiting.wrappingIncrement(by: returned.count - escaped.count, ordering: .releasing)
            self.returned.wrappingDecrement(by: returned.count, ordering: .releasing)
            queue.mainActorEscapes += escaped.count
            return escaped
        }
        for queued in escaped { marbles_enqueue_past_hooks(jobPointer(queued.job), true) }
    }

    /// Jobs enqueued from other threads so far.
    package var foreignEnqueueCount: Int { withLock { queue.foreignEnqueues } }

    /// Whether any job waits (one atomic load: the driver's loop asks between every two steps).
    @inline(__always) package var hasWaitingJobs: Bool { waiting.load(ordering: .acquiring) > 0 }

    /// Runs queued jobs, including those they enqueue, until none is left or `limit` ran.
    /// - Returns: how many ran.
    package func runUntilIdle(limit: Int) -> Int {
        var ran = 0
        while ran < limit, waiting.load(ordering: .acquiring) > 0, let queued = next() {
            if let jobStarts = driver.jobStarts { jobStarts.current = runtime?.clocks.uncounted { .now } ?? .now }
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
            guard queue.head < queue.jobs.count else {
                if queue.head > 0 {
                    queue.jobs.removeAll(keepingCapacity: true)
                    queue.head = 0
                }
                return nil
            }
            waiting.wrappingDecrement(by: 1, ordering: .relaxed)
            if let chooser = driver.chooser, queue.jobs.count - queue.head > 1 {
                let pick = chooser.pickJob(among: queue.jobs[queue.head...])
                if pick > 0 { return queue.jobs.remove(at: queue.head + pick) }
            }
            defer { queue.head += 1 }
            return queue.jobs[queue.head]
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
    package func noteForeignEmission() { withLock { queue.foreignEmissions += 1 } }
    package var foreignEmissionCount: Int { withLock { queue.foreignEmissions } }

    /// A main-actor job sent to the real main queue (the test does not run on the main actor).
    func noteMainActorEscape() {
        seen.store(1, ordering: .relaxed)
        withLock { queue.mainActorEscapes += 1 }
    }
    /// Main-actor jobs sent to the real main queue so far.
    var mainActorEscapeCount: Int { withLock { queue.mainActorEscapes } }
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
            let clocks = runtime.clocks
            let real = clocks.uncounted { ContinuousClock.now }
            // Type checks, not casts: a dynamic cast per sleep costs more than the rest of it.
            if C.self == ContinuousClock.self {
                remaining = real.duration(to: unsafeBitCast(instant, to: ContinuousClock.Instant.self))
            } else if C.self == SuspendingClock.self {
                remaining = clocks.uncounted { SuspendingClock.now }.duration(to: unsafeBitCast(instant, to: SuspendingClock.Instant.self))
            } else if let duration = clocks.uncounted({ clock.now }).duration(to: instant) as? Duration {
                remaining = duration
            } else {
                return forward(unowned) { $0.enqueue(ExecutorJob(unowned), at: instant, tolerance: tolerance, clock: clock) }
            }
            runtime.scheduleReadBackSleep(unowned, remaining: remaining, at: real, clock: C.self)
        }

        /// A sleep this executor cannot put on virtual time (from another thread, on a clock with
        /// other durations) goes where it would have gone without us.
        private func forward(_ job: UnownedJob, _ enqueue: (any SchedulingExecutor) -> Void) {
            withLock { queue.foreignEnqueues += 1 }
            if let platform = Task.defaultExecutor as? any SchedulingExecutor {
                enqueue(platform)
            } else {
                Task.defaultExecutor.enqueue(ExecutorJob(job))
            }
        }
    }
#endif
