package import Atomics
internal import CRuntimeHooks
package import MarbleCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The one room of virtual time for async code: everything that puts a test's async code on its
/// scheduler's virtual time. The executor its tasks run on (with the main-actor stand-in), the
/// route of the runtime's hooks and of the system clocks to that executor while the scheduler
/// drives, the drive loop, the sleep table (each sleep's wake-up on virtual time), and the counts
/// of work that escaped. `TestScheduler` (Marbles) owns one and reaches it through this type
/// alone: it drives, and it words what ``Leftovers`` says into failures.
///
/// A sleep, end to end: the code calls `Task.sleep`; the runtime computes a deadline from
/// `ContinuousClock.now` (virtual inside a run on Linux, see ``VirtualClocks``) and hands the
/// sleeper to the current scheduling executor (``TestTaskExecutor``), to the delay or deadline
/// hook (older runtimes, ``RuntimeRoute``), or, for a task with no executor preference on a
/// default actor, to Dispatch (caught on the driving thread by the interposer). Each lands in
/// ``scheduleExactSleep(_:_:clock:)`` (the duration is known) or
/// ``scheduleReadBackSleep(_:remaining:at:clock:)`` (a deadline on the real clock), which wake
/// the job when virtual time reaches the deadline.
///
/// Used from the scheduler's thread only.
package final class VirtualRuntime {
    package let executor: TestTaskExecutor
    package let clocks: VirtualClocks
    private let virtual: VirtualTimeScheduler
    /// The test the watchdog names the run after (`nil`: "a test scheduler"); worded only if it
    /// reports.
    package var watchTestName: String? {
        get { state.watchTestName }
        set {
            state.watchTestName = newValue
            state.watchKey = Watchdog.names.wrappingIncrementThenLoad(ordering: .relaxed)
        }
    }
    /// How long a run waits, in real time, for work the code handed to another thread before it
    /// reports that work and goes on (10 s; see ``ForeignWork``).
    package var foreignWorkTimeout: Duration {
        get { state.foreignWorkTimeout }
        set { state.foreignWorkTimeout = newValue }
    }

    /// Whether main-actor work runs in the drive loop whichever thread drives (a test body on
    /// virtual time: `withVirtualTime`, the `.virtualTime` trait); otherwise only when the
    /// driving thread is on the main actor.
    package var mainActorInLoop: Bool {
        get { state.mainActorInLoop }
        set { state.mainActorInLoop = newValue }
    }

    /// The task of a test body on virtual time while it runs (its `UnsafeCurrentTask`'s hash; `nil`
    /// before it starts and once it returned): its sleeps end after everything
    /// else due at the instant they end at, so that the body sees that instant settled (a
    /// model's 300 ms debounce and the body's 300 ms sleep: the body looks after the model has
    /// searched). A sleep is known by the task that is current when it is scheduled.
    package var bodyTask: Int? {
        get { state.bodyTask }
        set { state.bodyTask = newValue }
    }

    /// How many instants back a read-back sleep's deadline may have been computed.
    static let instantsKept = 4

    /// The sleep table and what it reports, the scheduler's thread's.
    private struct State {
        /// What most runs never touch, made on first use (``rare``): a test of observables then
        /// neither makes nor destroys it.
        var rare: Rare?
        /// Virtual time in nanoseconds as of the last step, for clocks read from other threads:
        /// made by ``publishNow()`` (a `TestClock` exists), else each step skips it.
        var publishedNow: ManagedAtomic<Int64>?
        /// Tasks waiting for everything due at the current instant to have run (``whenIdle(_:)``).
        var idleWaiters: [() -> Void] = []
        /// ``mainActorInLoop`` and ``bodyTask`` (read at every routing and every sleep).
        var mainActorInLoop = false
        var bodyTask: Int?
        /// ``watchTestName``, and the number the watchdog knows it by (0: unnamed); read at
        /// every drive.
        var watchTestName: String?
        var watchKey = 0
        /// ``awaitsAnswer`` (read as every drive ends).
        var awaitsAnswer: (() -> Bool)?
        /// ``foreignWorkTimeout`` and ``answerWait``: here, unchecked, because the drive loop
        /// reaches them, and checked they were one access each for the whole loop.
        var foreignWorkTimeout: Duration = .seconds(10)
        var answerWait: Duration = .milliseconds(250)
        /// Where the drive under way ends (ns; `.max`: none), which a body may move.
        var driveLimit: Int64 = .max
    }

    /// The sleep table's rarer parts: read-back sleeps, exploring, held wake-ups, the step-limit
    /// notes and what foreign work left.
    private final class Rare {
        /// Read-back only: the latest virtual instants run and the real time each began at,
        /// noted once async work exists (oldest first).
        var recentInstants: [SleepDeadline.Instant] = []
        /// Sleeps whose duration could not be told from their deadline, with the virtual time
        /// they started at; handed over when the flush ends.
        var ambiguousSleeps: [(start: Duration, sleep: SleepDeadline)] = []
        /// Exploring schedules: the wake-ups due at each instant not yet run, oldest first.
        var pendingWakes = [Duration: [() -> Void]]()
        /// Instants at which an async expectation's `!` will cancel its consumer, with how many
        /// cancels are still to run there.
        var heldWakes = [Duration: Int]()
        var reportedMainActorEscapes = 0
        /// While the step-limit message is gathered: the sleeps that arrive, by task.
        var sleepNotes: [SleepingTask]?
        /// Foreign work still out when the bound passed, not yet reported.
        var overdue: [ForeignWork.Overdue] = []
        /// Every member blocked in a known wait with nothing due: when, and who waits on what.
        var deadlock: (at: Duration, members: [ForeignWork.BlockedMember])?
    }

    private var rare: Rare {
        if let rare = state.rare { return rare }
        let rare = Rare()
        state.rare = rare
        return rare
    }

    /// A task that went to sleep, as the step-limit failure names it.
    package struct SleepingTask: Equatable {
        /// The task's name (`Task(name:)`), if it has one.
        package var name: String?
        /// When its sleep ends, in virtual time.
        package var deadline: Duration
        /// Which task (the same task sleeping again is one entry; compare ``bodyTask``).
        package var task: Int?
    }
    // One stored property, read on every step, never in overlapping accesses.
    // measured: see TestScheduler.state (the harness's, the executor's and this, together).
    @exclusivity(unchecked) private var state = State()

    package init(virtual: VirtualTimeScheduler, startDate: Date?) {
        self.virtual = virtual
        executor = TestTaskExecutor()
        clocks = VirtualClocks(virtual: virtual, startDate: startDate)
        // Unowned: the executor may outlive this runtime (tasks keep it), so deinit clears them.
        executor.runtime = self
        clocks.deliverTimers(to: self)
    }

    // What outlives the test must not reach it: from here on, late jobs and main-queue blocks of
    // its tasks and tracked work take their usual paths (the real main queue, the global
    // executor), and those still held go there too.
    deinit {
        detach()
        executor.runtime = nil
    }

    /// Sends what arrives from now on, and what is still queued or held, along its usual path
    /// (the real main queue, the global executor): after a test, or for a test body on virtual
    /// time that was given up on, so that it can still end on real time.
    package func detach() {
        clocks.detachTracker()
        executor.detach()
    }

    /// From now on each step publishes virtual time, for reads from other threads; returns
    /// where it is published.
    package func publishNow() -> ManagedAtomic<Int64> {
        if let published = state.publishedNow { return published }
        let published = ManagedAtomic<Int64>(virtual.nowNanoseconds)
        state.publishedNow = published
        return published
    }

    /// Virtual time now (for the foreign-work timers).
    var virtualNow: Duration { virtual.now }

    /// The executor's first job: from now on the scheduler notes when each instant begins.
    func noteFirstJob() { noteInstant(virtual.now) }

    /// Runs `body` (a run's body, or a flush driving virtual time) with the work started on this
    /// thread routed to the executor and the system clocks virtual on it.
    package func routing<T>(_ body: () throws -> T) rethrows -> T {
        let virtualClocks = clocks.route(at: virtual.now)
        if clocks.mode == .readBack { noteInstant(virtual.now) }
        // A run's drive, inside the run's own routing.
        if RuntimeRoute.isRouted(to: executor, run: clocks.run, virtualClocks: virtualClocks) { return try body() }
        executor.notesJobStarts = clocks.mode == .readBack
        return try RuntimeRoute.routing(to: executor, run: clocks.run, virtualClocks: virtualClocks, mainActorInLoop: mainActorInLoop, body)
    }

    // MARK: Driving

    /// Runs virtual time and the executor's jobs in turn: all jobs until idle, then the next
    /// virtual action, so each wake-up runs to completion before the next one. Synchronous
    /// loops inside one action (a `retry` of a source that fails at once) count against the
    /// same step limit through ``RunawayGuard``.
    /// - Parameter limit: the virtual time to stop at (`nil`: when no work is left).
    /// - Returns: why it stopped early (the step limit), or `nil` when it ran to the end.
    package func drive(until limit: Duration?, steps: Int? = nil) -> String? {
        executor.adoptCurrentThread()
        var budget = RunawayGuard.Budget(limit: steps ?? virtual.stepLimit)
        let watch = Watchdog.begin(state.watchTestName, key: state.watchKey, virtualNow: virtual.nowNanoseconds)
        defer { watch.end() }
        return routing {
            withUnsafeMutablePointer(to: &budget) { budget in
                let outer = RunawayGuard.install(budget)
                defer { RunawayGuard.restore(outer) }
                return driveSteps(budget, until: limit, watch: watch)
            }
        }
    }

    /// The loop of ``drive(until:steps:)``, in the routing, with `budget` installed.
    private func driveSteps(_ budget: UnsafeMutablePointer<RunawayGuard.Budget>, until limit: Duration?, watch: Watchdog.Record) -> String?
    {
        let stepLimit = budget.pointee.limit
        // Built only when the limit is hit: a test's fixed cost should not pay for formatting it.
        var limitText: String { "the test scheduler ran \(stepLimit) steps and work was still due" }
        let outerLimit = state.driveLimit
        state.driveLimit = limit.map(VirtualTimeScheduler.nanos) ?? .max
        defer { state.driveLimit = outerLimit }
        let home = clocks.run
        while true {
            if executor.hasWaitingJobs {
                budget.pointee.used += executor.runUntilIdle(limit: stepLimit - budget.pointee.used + 1)
                if budget.pointee.used > stepLimit { return budget.pointee.loopDescription ?? limitText }
            }
            // Work handed to other threads: wait for it at this instant, then run what came back.
            // The count first: a block resumes its job before it counts itself done, so
            // once none is out, every job it returned is already held (read the other
            // way round, a block finishing between the reads left its job unseen).
            if home.pointee.members.map(ForeignWork.out) ?? 0 > 0 || executor.hasReturnedJobs {
                // An answer from a thread the run did not start that came before the
                // wait below would have begun lands at this instant either way.
                if virtual.nextDueTime == nil, executor.hasReturnedJobs, awaitsAnswer?() == true {
                    executor.acceptUntrackedAnswers()
                }
                settleForeignWork(watch)
                // Still out: the wait ended early for main-actor work the work out needed.
                if executor.hasWaitingJobs || home.pointee.members.map(ForeignWork.out) ?? 0 > 0 { continue }
            }
            if !state.idleWaiters.isEmpty, resumeIdleWaiters() { continue }
            if let tracker = clocks.tracker, marbles_members_take_io_ended(tracker), waitForIOAnswer(tracker) { continue }
            noteNextInstant()
            if clocks.bodyReturned, clocks.loopTimers > 0, clocks.loopTimers == virtual.pendingCount { break }
            guard virtual.step(throughNanoseconds: state.driveLimit) else {
                // Every member blocked in a known wait and nothing due: nothing can ever wake them.
                if virtual.nextDueTime == nil, let tracker = clocks.tracker {
                    let blocked = marbles_members_blocked(tracker, nil, 0)
                    if blocked < 0 { continue }  // a member woke meanwhile: settle it
                    if blocked > 0 {
                        rare.deadlock = (virtual.now, ForeignWork.blockedMembers(tracker))
                        break
                    }
                }
                // Nothing left on virtual time, but a task the run awaits is suspended: a
                // thread the run did not start may still answer it (an I/O loop started
                // before the test); its job comes back to this executor at this instant.
                // Only with nothing at all left: a run that stops at a limit (advance,
                // maxFrames) with wake-ups still due waits for nothing.
                if virtual.nextDueTime == nil, awaitsAnswer?() == true, waitForAnswer() { continue }
                break
            }
            budget.pointee.used &+= 1
            if budget.pointee.used > stepLimit { return budget.pointee.loopDescription ?? limitText }
            watch.virtualNow.store(virtual.nowNanoseconds, ordering: .relaxed)
            if let publishedNow = state.publishedNow { publishedNow.store(virtual.nowNanoseconds, ordering: .relaxed) }
        }
        if state.driveLimit != .max { try? virtual.advance(to: .nanoseconds(state.driveLimit)) }
        return nil
    }

    /// Moves the end of the drive under way (a test body on virtual time set `maxFrames`); `nil`:
    /// no end but the work's.
    package func moveDriveLimit(to limit: Duration?) { state.driveLimit = limit.map(VirtualTimeScheduler.nanos) ?? .max }

    /// Whether a task the run awaits (an async expectation's, a test body's) is still suspended:
    /// set by the scheduler. When nothing else is left, the run then waits a little for an
    /// answer from a thread it did not start (``answerWait``).
    package var awaitsAnswer: (() -> Bool)? {
        get { state.awaitsAnswer }
        set { state.awaitsAnswer = newValue }
    }

    /// How long, in real time, a run whose awaited task is suspended with nothing else left waits
    /// for a job to come back from a thread it did not start (a worker started before the run):
    /// 250 ms, once per scheduler. Such threads answer in microseconds as a rule; a continuation
    /// that nothing will ever resume is then reported 250 ms later, and later runs of the same
    /// scheduler do not wait again.
    package var answerWait: Duration {
        get { state.answerWait }
        set { state.answerWait = newValue }
    }

    /// Calls `resume` once everything due at the current instant has run: no job is ready, no
    /// work handed to another thread is out, and no timer is due before time would move (Go's
    /// `synctest.Wait`, Kotlin's `runCurrent`). Call it on the driving thread.
    package func whenIdle(_ resume: @escaping () -> Void) { state.idleWaiters.append(resume) }

    /// Resumes the idle waiters when nothing else is due at this instant; whether it did.
    private func resumeIdleWaiters() -> Bool {
        if let next = virtual.nextDueTime, next <= virtual.now { return false }
        let waiters = state.idleWaiters
        state.idleWaiters = []
        for resume in waiters { resume() }
        return true
    }

    /// Waits for the work out (bounded), notes what was overdue, and queues what came back.
    private func settleForeignWork(_ watch: Watchdog.Record) {
        var held: [marbles_handoff] = []
        if let tracker = clocks.tracker {
            ForeignWork.setNow(tracker, virtual.nowNanoseconds)
            watch.waiting.store(true, ordering: .relaxed)
            let overdue = ForeignWork.settle(tracker, timeout: foreignWorkTimeout, jobsHeld: executor.returnedCountAddress)
            if !overdue.isEmpty { rare.overdue += overdue }
            watch.waiting.store(false, ordering: .relaxed)
            held = takeHandoffs(tracker)
        }
        executor.takeReturned()
        runHeldMainWork(held)
    }

    // MARK: Sleeps

    /// Puts a sleep whose duration is known on virtual time: its job runs `duration` from now
    /// (the time left to a deadline computed from virtual clocks, or a delay given as such).
    package func scheduleExactSleep(_ job: UnownedJob, _ duration: Duration, clock: Any.Type?) {
        schedule(job, after: SleepDeadline(exactly: duration, clock: clock))
    }

    /// Puts a sleep given as a deadline on virtual time: `remaining` is the deadline minus the
    /// clock's time `real` when the sleep arrived. Exact where the clocks are virtual (the
    /// deadline was computed from virtual `now`); read back where they are real
    /// (``SleepDeadline``).
    package func scheduleReadBackSleep(_ job: UnownedJob, remaining: Duration, at real: ContinuousClock.Instant, clock: Any.Type?) {
        guard clocks.mode != .virtual else {
            clocks.noteDeadlineSleep(on: clock)
            return schedule(job, after: SleepDeadline(exactly: remaining, clock: clock))
        }
        clocks.noteDeadlineSleep(on: clock)
        let now = virtual.now
        // This instant is noted once any job exists, and a sleep is one; should it not be, the
        // bound is the sleep's own arrival (the read was just before).
        let recent = state.rare?.recentInstants ?? []
        let instants = recent.last?.time == now ? recent : [SleepDeadline.Instant(time: now, real: real)]
        let sleep = SleepDeadline(
            remaining: remaining, instants: instants, jobStart: executor.currentJobStart, arrival: real, now: now, clock: clock)
        if sleep.ambiguity != nil { rare.ambiguousSleeps.append((now, sleep)) }
        schedule(job, after: sleep)
    }

    private func schedule(_ job: UnownedJob, after sleep: SleepDeadline) {
        if let bodyTask, withUnsafeCurrentTask(body: { $0?.hashValue }) == bodyTask {
            return scheduleWake(at: virtual.now + sleep.delay) { [unowned self] in
                whenIdle { [executor] in executor.enqueueRouted(job) }
            }
        }
        scheduleWake(at: virtual.now + sleep.delay) { [executor] in executor.enqueueRouted(job) }
    }

    /// Schedules a sleeper's wake-up (`wake` makes its job ready). When exploring schedules, a
    /// wake-up may release the others due at the same instant with it (``ScheduleChooser``).
    /// At an instant where an async expectation's `!` cancels its consumer, wake-ups wait until
    /// the cancel has run.
    package func scheduleWake(at due: Duration, _ wake: @escaping () -> Void) {
        if let rare = state.rare {
            if rare.sleepNotes != nil { noteSleeper(until: due) }
            if !rare.heldWakes.isEmpty { return scheduleHeldWake(at: due, wake) }
        }
        guard executor.chooser != nil else {
            _ = virtual.enqueue(at: due, wake)
            return
        }
        rare.pendingWakes[due, default: []].append(wake)
        _ = virtual.enqueue(at: due) { [unowned self] in releaseWakes(at: due) }
    }

    /// Notes that a cancel will run at `instant`: wake-ups due then wait for it.
    package func holdWakes(at instant: Duration) { rare.heldWakes[instant, default: 0] += 1 }

    /// A cancel at `instant` ran.
    package func releaseHeldWakes(at instant: Duration) {
        guard let count = rare.heldWakes[instant] else { return }
        rare.heldWakes[instant] = count > 1 ? count - 1 : nil
    }

    /// A wake-up that, when it comes due at an instant a cancel is still to run at, goes back
    /// to the end of that instant's work (after the cancel, which is queued there already).
    private func scheduleHeldWake(at due: Duration, _ wake: @escaping () -> Void) {
        let guarded = { [unowned self] in
            if rare.heldWakes[virtual.now] != nil {
                scheduleHeldWake(at: virtual.now, wake)
            } else if executor.chooser != nil {
                rare.pendingWakes[virtual.now, default: []].append(wake)
                releaseWakes(at: virtual.now)
            } else {
                wake()
            }
        }
        _ = virtual.enqueue(at: due, guarded)
    }

    /// Exploring: runs the oldest wake-up due at `due` still pending, and maybe the rest.
    private func releaseWakes(at due: Duration) {
        guard var wakes = rare.pendingWakes[due], !wakes.isEmpty, let chooser = executor.chooser else { return }
        var released = [wakes.removeFirst()]
        if !wakes.isEmpty, chooser.wakesTogether(others: wakes.count) {
            released += wakes
            wakes = []
        }
        rare.pendingWakes[due] = wakes.isEmpty ? nil : wakes
        for wake in released { wake() }
    }

    /// Read-back only: notes the real time at which the next virtual instant begins, once async
    /// work exists.
    @inline(__always) func noteNextInstant() {
        guard clocks.mode == .readBack, executor.hasSeenJobs, let next = virtual.nextDueTime else { return }
        noteInstant(next)
    }

    private func noteInstant(_ time: Duration) {
        guard clocks.mode != .virtual, state.rare?.recentInstants.last?.time != time else { return }
        let rare = self.rare
        if rare.recentInstants.count == Self.instantsKept { rare.recentInstants.removeFirst() }
        rare.recentInstants.append(SleepDeadline.Instant(time: time, real: clocks.uncounted { .now }))
    }

    // MARK: The step limit

    /// After the step limit: runs up to `steps` more steps and returns the tasks that went to
    /// sleep meanwhile (a task that keeps sleeping is what keeps the run going), each once, with
    /// its latest deadline, in the order they first slept.
    package func sleepingTasks(steps: Int) -> [SleepingTask] {
        guard executor.hasSeenJobs else { return [] }
        rare.sleepNotes = []
        _ = drive(until: nil, steps: steps)
        let notes = rare.sleepNotes ?? []
        rare.sleepNotes = nil
        var tasks: [SleepingTask] = []
        for note in notes {
            if let known = tasks.firstIndex(where: { $0.task != nil && $0.task == note.task }) {
                tasks[known].deadline = note.deadline
            } else {
                tasks.append(note)
            }
        }
        return tasks
    }

    private func noteSleeper(until deadline: Duration) {
        var name: String?
        #if compiler(>=6.2)
            if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) { name = Task.name }
        #endif
        let task = withUnsafeCurrentTask { $0?.hashValue }
        rare.sleepNotes?.append(SleepingTask(name: name, deadline: deadline, task: task))
    }

    // MARK: The end of a flush

    /// Hands over what the last flush left to report; `nil` when it left nothing.
    package func takeLeftovers() -> Leftovers? {
        // No job and no escape ever (a test of observables): nothing to hand over, no lock taken.
        let busyWait = clocks.takeBusyWait()
        let escapes = clocks.tracker.map(ForeignWork.takeEscapes) ?? []
        guard executor.hasSeenJobs || state.rare != nil || busyWait != nil || !escapes.isEmpty else { return nil }
        let rare = state.rare
        let ambiguous = rare?.ambiguousSleeps ?? []
        let overdue = rare?.overdue ?? []
        let deadlock = rare?.deadlock
        rare?.ambiguousSleeps = []
        rare?.overdue = []
        rare?.deadlock = nil
        let mainActorEscapes = executor.mainActorEscapeCount
        let reported = rare?.reportedMainActorEscapes ?? 0
        if mainActorEscapes != reported { self.rare.reportedMainActorEscapes = mainActorEscapes }
        // The usual end of an async test: its jobs ran, and nothing escaped or stalled.
        guard
            !ambiguous.isEmpty || !overdue.isEmpty || mainActorEscapes != reported || busyWait != nil || !escapes.isEmpty
                || deadlock != nil
        else { return nil }
        return Leftovers(
            ambiguousSleeps: ambiguous, mainActorEscapes: mainActorEscapes - reported, overdue: overdue, busyWait: busyWait,
            escapes: escapes, deadlock: deadlock)
    }

    /// Runs the jobs that cancelling the leftover tasks made ready (teardown: nothing stays parked).
    package func settle() { _ = executor.runUntilIdle(limit: virtual.stepLimit) }

    /// Jobs and emissions that reached the executor from other threads, so far.
    package var foreignWorkCount: Int { executor.foreignEnqueueCount + executor.foreignEmissionCount }
}
