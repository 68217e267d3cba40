import MarbleCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Everything that puts a test's async code on its ``TestScheduler``'s virtual time, in one
/// place: the executor its tasks run on (with the main-actor stand-in), the routing of the
/// runtime's hooks and of the system clocks to that executor while the scheduler drives, the
/// sleep table (each sleep's wake-up on virtual time), and the reports of work that escaped.
///
/// A sleep, end to end: the code calls `Task.sleep`; the runtime computes a deadline from
/// `ContinuousClock.now` (virtual inside a run on Linux, see ``VirtualClocks``) and hands the
/// sleeper to the current scheduling executor (``TestTaskExecutor``), to the delay or deadline
/// hook (older runtimes, ``GlobalEnqueueHook``), or, for a task with no executor preference on a
/// default actor, to Dispatch (caught on the driving thread by ``VirtualClocks``). Each lands in
/// ``scheduleSleep(_:exact:remaining:at:clock:)``, which wakes the job when virtual time reaches
/// the deadline, exactly when the clocks are virtual, read back when they cannot be
/// (``SleepDeadline``).
///
/// Used from the scheduler's thread only.
final class VirtualRuntime {
    let executor: TestTaskExecutor
    let clocks: VirtualClocks
    private let virtual: VirtualTimeScheduler
    private let reporter: any MarbleFailure.Reporter
    private let frame: Duration

    // The state below is confined to the scheduler's thread, never in overlapping accesses:
    // the runtime's exclusivity checks (some on every step of every test) are off.

    /// The scheduler's `clock`, once made.
    @exclusivity(unchecked) var testClock: TestClock?
    /// The async expectations of the current run.
    @exclusivity(unchecked) var runs: [AsyncRun] = []

    /// Read-back only: the latest virtual instants run and the real time each began at, noted
    /// once async work exists (oldest first).
    @exclusivity(unchecked) private var recentInstants: [SleepDeadline.Instant] = []
    /// How many instants back a read-back sleep's deadline may have been computed.
    static let instantsKept = 4
    /// Sleeps whose duration could not be told from their deadline, with the virtual time they
    /// started at; reported when the run ends.
    @exclusivity(unchecked) private var ambiguousSleeps: [(start: Duration, sleep: SleepDeadline)] = []
    /// Exploring schedules: the wake-ups due at each instant not yet run, oldest first.
    @exclusivity(unchecked) private var pendingWakes: [Duration: [() -> Void]] = [:]
    @exclusivity(unchecked) private var reportedMainActorEscapes = 0
    @exclusivity(unchecked) private var reportedEscapes = 0

    init(virtual: VirtualTimeScheduler, frame: Duration, reporter: any MarbleFailure.Reporter, startDate: Date?) {
        self.virtual = virtual
        self.frame = frame
        self.reporter = reporter
        executor = TestTaskExecutor()
        clocks = VirtualClocks(virtual: virtual, startDate: startDate)
        // Unowned: the executor may outlive this runtime (tasks keep it), so deinit clears them.
        executor.runtime = self
        clocks.runtime = self
    }

    deinit {
        executor.runtime = nil
        clocks.runtime = nil
    }

    /// The executor's first job: from now on the scheduler notes when each instant begins.
    func noteFirstJob() { noteInstant(virtual.now) }

    /// Runs `body` (a run's body, or a flush driving virtual time) with the work started on this
    /// thread routed to the executor and the system clocks virtual on it.
    func routing<T>(_ body: () throws -> T) rethrows -> T {
        try clocks.reading(at: virtual.now) {
            executor.notesJobStarts = clocks.mode == .readBack
            if clocks.mode == .readBack { noteInstant(virtual.now) }
            return try GlobalEnqueueHook.routing(to: executor, body)
        }
    }

    // MARK: Sleeps

    /// Puts a system-clock sleep of the code under test on virtual time: its job runs when
    /// virtual time reaches the end of the sleep (see ``SleepDeadline``).
    func scheduleSleep(_ job: UnownedJob, exact: Duration?, remaining: Duration, at real: ContinuousClock.Instant, clock: Any.Type?) {
        let now = virtual.now
        let sleep: SleepDeadline
        if let exact {
            sleep = SleepDeadline(exactly: exact, clock: clock)
        } else if clocks.mode == .virtual {
            // The deadline was computed from virtual `now`, and `remaining` read against it.
            sleep = SleepDeadline(exactly: remaining, clock: clock)
        } else {
            // This instant is noted once any job exists, and a sleep is one; should it not be, the
            // bound is the sleep's own arrival (the read was just before).
            let instants = recentInstants.last?.time == now ? recentInstants : [SleepDeadline.Instant(time: now, real: real)]
            sleep = SleepDeadline(
                remaining: remaining, instants: instants, jobStart: executor.currentJobStart, arrival: real, now: now,
                clock: clock)
        }
        if sleep.ambiguity != nil { ambiguousSleeps.append((now, sleep)) }
        scheduleWake(at: now + sleep.delay) { [executor] in executor.enqueueRouted(job) }
    }

    /// Schedules a sleeper's wake-up (`wake` makes its job ready). When exploring schedules, a
    /// wake-up may release the others due at the same instant with it (``ScheduleChooser``).
    /// At an instant where an async expectation's `!` cancels its consumer, wake-ups wait until
    /// the cancel has run.
    func scheduleWake(at due: Duration, _ wake: @escaping () -> Void) {
        if !heldWakes.isEmpty {
            return scheduleHeldWake(at: due, wake)
        }
        guard executor.chooser != nil else {
            _ = virtual.enqueue(at: due, wake)
            return
        }
        pendingWakes[due, default: []].append(wake)
        _ = virtual.enqueue(at: due) { [unowned(unsafe) self] in releaseWakes(at: due) }
    }

    /// Instants at which an async expectation's `!` will cancel its consumer, with how many
    /// cancels are still to run there.
    @exclusivity(unchecked) private var heldWakes: [Duration: Int] = [:]

    /// Notes that a cancel will run at `instant`: wake-ups due then wait for it.
    func holdWakes(at instant: Duration) { heldWakes[instant, default: 0] += 1 }

    /// A cancel at `instant` ran.
    func releaseHeldWakes(at instant: Duration) {
        guard let count = heldWakes[instant] else { return }
        heldWakes[instant] = count > 1 ? count - 1 : nil
    }

    /// A wake-up that, when it comes due at an instant a cancel is still to run at, goes back
    /// to the end of that instant's work (after the cancel, which is queued there already).
    private func scheduleHeldWake(at due: Duration, _ wake: @escaping () -> Void) {
        let guarded = { [unowned(unsafe) self] in
            if heldWakes[virtual.now] != nil {
                scheduleHeldWake(at: virtual.now, wake)
            } else if executor.chooser != nil {
                pendingWakes[virtual.now, default: []].append(wake)
                releaseWakes(at: virtual.now)
            } else {
                wake()
            }
        }
        _ = virtual.enqueue(at: due, guarded)
    }

    /// Exploring: runs the oldest wake-up due at `due` still pending, and maybe the rest.
    private func releaseWakes(at due: Duration) {
        guard var wakes = pendingWakes[due], !wakes.isEmpty, let chooser = executor.chooser else { return }
        var released = [wakes.removeFirst()]
        if !wakes.isEmpty, chooser.wakesTogether(others: wakes.count) {
            released += wakes
            wakes = []
        }
        pendingWakes[due] = wakes.isEmpty ? nil : wakes
        for wake in released { wake() }
    }

    /// Read-back only: notes the real time at which the next virtual instant begins, once async
    /// work exists.
    @inline(__always) func noteNextInstant() {
        guard clocks.mode == .readBack, executor.hasSeenJobs, let next = virtual.nextDueTime else { return }
        noteInstant(next)
    }

    private func noteInstant(_ time: Duration) {
        guard clocks.mode != .virtual, recentInstants.last?.time != time else { return }
        if recentInstants.count == Self.instantsKept { recentInstants.removeFirst() }
        recentInstants.append(SleepDeadline.Instant(time: time, real: .now))
    }

    // MARK: The end of a flush

    /// After a flush: reports sleeps read back ambiguously and main-actor work that escaped,
    /// cancels async work still running (as at an unsubscription), wakes parked sleepers, and
    /// reports work that escaped to other threads or stalled. `cutShort`: `maxFrames` ended the
    /// flush on purpose, so a suspended task is no failure.
    func finish(at location: MarbleFailure.Location, cutShort: Bool) {
        reportAmbiguousSleeps(at: location)
        reportMainActorEscapes(at: location)
        guard !runs.isEmpty || testClock != nil else { return }
        // A task still suspended when nothing is left to run waits for something that will not
        // come on this timeline: work on another thread, or an input that never ends. Either
        // way the test says so (unless `maxFrames` cut the run short on purpose).
        let unfinished = runs.filter { $0.started && !$0.finished && !$0.cancelled }
        for run in unfinished {
            run.cancelled = true
            run.task?.cancel()
        }
        testClock?.cancelAll()
        _ = executor.runUntilIdle(limit: virtual.stepLimit)
        runs.removeAll { $0.finished || $0.cancelled }
        if escapeCount == reportedEscapes, !cutShort, let stalled = unfinished.first {
            reporter.report(
                MarbleFailure(
                    message: """
                        the async sequence under test was still suspended when nothing was left to run on the test \
                        scheduler: it waits either for work outside the test scheduler (a DispatchQueue timer, an actor \
                        with its own executor, MainActor in a test not marked @MainActor, a thread of its own) or for an \
                        input that never ends (add an unsubscription diagram, e.g. expect(sequence, unsubscribe: "-----!"), \
                        to cancel it on purpose)
                        """,
                    location: stalled.location))
        }
        if escapeCount > reportedEscapes {
            reportedEscapes = escapeCount
            reporter.report(
                MarbleFailure(
                    message: """
                        async work reached the test scheduler from another thread (\(executor.foreignEnqueueCount) job(s) \
                        enqueued, \(testClock?.foreignAccessCount ?? 0) clock use(s), \(executor.foreignEmissionCount) emission(s) \
                        off its thread): some of it ran outside the test scheduler (on a DispatchQueue, on an actor with \
                        its own executor, or in a task started before the scheduler ran), so its timing is racy and cannot \
                        be tested on virtual time. Keep the code under test on the scheduler: avoid hops to other queues, \
                        start its tasks inside scheduler.run { }, and mark the test @MainActor for main-actor code
                        """,
                    location: unfinished.first?.location ?? location))
        }
    }

    private func reportAmbiguousSleeps(at location: MarbleFailure.Location) {
        let ambiguous = ambiguousSleeps
        ambiguousSleeps = []
        for (start, sleep) in ambiguous {
            guard let ambiguity = sleep.ambiguity else { continue }
            let (first, second) = ambiguity.other < sleep.duration ? (ambiguity.other, sleep.duration) : (sleep.duration, ambiguity.other)
            reporter.report(
                MarbleFailure(
                    message: """
                        a sleep on \(sleep.clockName) started at \(frameText(start, frame: frame)) has no duration that can be \
                        told: the system clocks are real here (\(clocks.whyReal)), so Task.sleep hands over a deadline \
                        on the real clock, and the duration read back from it lies between \(ambiguity.range.lowerBound) and \
                        \(ambiguity.range.upperBound) (the task ran that long in real time before it slept): it could be \
                        \(first) or \(second). It slept \(sleep.duration) of virtual time. Sleep right after computing the \
                        deadline, or sleep on scheduler.clock
                        """,
                    location: location))
        }
    }

    private func reportMainActorEscapes(at location: MarbleFailure.Location) {
        let mainEscapes = executor.mainActorEscapes.load(ordering: .relaxed)
        guard mainEscapes > reportedMainActorEscapes else { return }
        reportedMainActorEscapes = mainEscapes
        reporter.report(
            MarbleFailure(
                message: """
                    the code under test started \(mainEscapes) main-actor job(s), but this test does not run on the main \
                    actor, so they ran on the main queue in real time, outside the test scheduler. Mark the test \
                    @MainActor (Swift Testing: @MainActor @Test; XCTest: a synchronous test method, which runs on the \
                    main thread, its body in MainActor.assumeIsolated { }): the scheduler then runs main-actor work in \
                    its loop, on virtual time
                    """,
                location: location))
    }

    private var escapeCount: Int {
        executor.foreignEnqueueCount + executor.foreignEmissionCount + (testClock?.foreignAccessCount ?? 0)
    }
}
