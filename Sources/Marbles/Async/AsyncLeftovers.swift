import MarbleCore
import MarblesRuntime

extension TestScheduler {
    /// After a flush: reports sleeps read back ambiguously and main-actor work that escaped,
    /// cancels async work still running (as at an unsubscription), wakes parked sleepers, and
    /// reports work that escaped to other threads or stalled. `cutShort`: `maxFrames` ended the
    /// flush on purpose, so a suspended task is no failure.
    func finishAsync(at location: MarbleFailure.Location, cutShort: Bool) {
        if let leftovers = runtime.takeLeftovers() {
            reportAmbiguousSleeps(leftovers, at: location)
            reportMainActorEscapes(leftovers.mainActorEscapes, at: location)
            reportOverdue(leftovers.overdue, at: location)
            if let deadlock = leftovers.deadlock { reportDeadlock(deadlock, at: location) }
            reportEscapes(leftovers.escapes, at: location)
            if let busyWait = leftovers.busyWait {
                rare.busyWaitClock = busyWait.clock
                reportBusyWait(busyWait, at: location)
            }
        }
        guard !state.asyncRuns.isEmpty || state.testClock != nil else { return }
        // A task still suspended when nothing is left to run waits for something that will not
        // come on this timeline: work on another thread, or an input that never ends. Either
        // way the test says so (unless `maxFrames` cut the run short on purpose).
        let unfinished = state.asyncRuns.filter { $0.started && !$0.finished && !$0.cancelled }
        for run in unfinished {
            run.cancelled = true
            run.task?.cancel()
        }
        state.testClock?.cancelAll()
        runtime.settle()
        state.asyncRuns.removeAll { $0.finished || $0.cancelled }
        let escapes = escapeCount
        let reportedEscapes = state.rare?.reportedEscapes ?? 0
        let deadlocked = state.rare?.reportedDeadlock ?? false
        if deadlocked { rare.reportedDeadlock = false }
        if escapes == reportedEscapes, !cutShort, !deadlocked, let stalled = unfinished.first {
            report(
                """
                the async sequence under test was still suspended when nothing was left to run on the test \
                scheduler, and no work it handed to another thread was still out: it waits for something that will \
                not come on this timeline: a continuation nothing resumes, a thread started before the run that \
                never answered, work the scheduler does not see (a Dispatch timer source scheduled off the test's \
                thread, a Timer in a run-loop mode the run does not drive, a pthread of its own), \
                MainActor work in a test not marked @MainActor, or an input that never ends (add an unsubscription \
                diagram, e.g. expect(sequence, unsubscribe: "-----!"), to cancel it on purpose)
                """, at: stalled.location)
        }
        if escapes > reportedEscapes {
            rare.reportedEscapes = escapes
            report(
                """
                async work reached the test scheduler from another thread (\(executor.foreignEnqueueCount) job(s) \
                enqueued, \(state.testClock?.foreignAccessCount ?? 0) clock use(s), \(executor.foreignEmissionCount) emission(s) \
                off its thread): some of it ran outside the test scheduler (on a DispatchQueue, on an actor with \
                its own executor, or in a task started before the scheduler ran), so its timing is racy and cannot \
                be tested on virtual time. Keep the code under test on the scheduler: avoid hops to other queues, \
                start its tasks inside scheduler.run { }, and mark the test @MainActor for main-actor code
                """, at: unfinished.first?.location ?? location)
        }
    }

    private func reportDeadlock(_ deadlock: (at: Duration, members: [ForeignWork.BlockedMember]), at location: MarbleFailure.Location) {
        rare.reportedDeadlock = true
        let listed = deadlock.members.map { member in
            "  \(member.member) waits on \(member.waitsOn) since \(frameText(member.since, frame: frame))"
                + (member.deadline.map { " (its deadline, \(frameText($0, frame: frame)), never came)" } ?? "")
        }
        report(
            """
            deadlock at \(frameText(deadlock.at, frame: frame)): every thread the test's work started is blocked, and \
            nothing is due on virtual time that could wake one:
            """ + "\n" + listed.joined(separator: "\n") + "\n"
                + """
                Each waits on something made inside the run (a semaphore, group or condition), which only the \
                test's own work could signal: look for a signal that is never sent, or sent only after the wait \
                returns.
                """, at: location)
    }

    private func reportOverdue(_ overdue: [ForeignWork.Overdue], at location: MarbleFailure.Location) {
        guard !overdue.isEmpty else { return }
        let listed = overdue.prefix(5).map { work in
            let what =
                switch work.kind {
                case "thread": "a Thread started"
                case "timer": "a timer's work, due"
                case "io": "real I/O (\(work.label)) started"
                case "function": "a function submitted to queue '\(work.label)'"
                default: "a block submitted to queue '\(work.label)'"
                }
            return "  \(what) at \(frameText(work.submitted, frame: frame)) has not finished after \(seconds(work.age))"
                + (work.waitsOn.map { " (it waits on \($0), which holds virtual time still)" } ?? "")
        }
        report(
            """
            work the code under test handed to another thread was still out after \(seconds(runtime.foreignWorkTimeout)) \
            of real time, so the run went on without it (virtual time waits for such work at the instant it was \
            handed over):
            """ + "\n" + listed.joined(separator: "\n")
                + (overdue.count > 5 ? "\n  … and \(overdue.count - 5) more" : "") + "\n"
                    + """
                    Work that waits for the test itself (a semaphore the test signals later, DispatchQueue.main.sync from \
                    a test on the main actor) cannot finish while the test waits for it; a longer bound is \
                    scheduler.foreignWorkTimeout.
                    """, at: location)
    }

    /// Work that stayed on real time names itself: the test's timing then depends on the machine.
    private func reportEscapes(_ escapes: [ForeignWork.Escape], at location: MarbleFailure.Location) {
        guard !escapes.isEmpty else { return }
        let listed = escapes.map { "  \($0.what) armed at \(frameText($0.at, frame: frame)) \($0.place)" }
        var advice: [String] = []
        if escapes.contains(where: { $0.what.hasPrefix("a Dispatch") }) {
            advice.append(
                """
                A Dispatch timer source is on virtual time when it is made and scheduled on the thread that runs \
                the test (inside scheduler.run, or a .virtualTime test), with a deadline from DispatchTime \
                (.now() + …), not a wall-clock one.
                """)
        }
        if escapes.contains(where: { $0.what.contains("run loop") || $0.what.contains("run-loop") }) {
            advice.append(
                """
                A run-loop timer (Timer.scheduledTimer, RunLoop.add, Timer.publish, RunLoop as a scheduler) is on \
                virtual time when it is made and added on the thread that runs the test, to that thread's run loop \
                or to RunLoop.main in a test on the main actor, in the default or the common modes.
                """)
        }
        report(
            "work of the code under test stayed on real time, so this test's timing depends on the machine:\n"
                + listed.joined(separator: "\n") + (advice.isEmpty ? "" : "\n" + advice.joined(separator: "\n")), at: location)
    }

    private func reportBusyWait(_ busyWait: (clock: String, at: Duration), at location: MarbleFailure.Location) {
        report(
            """
            the code under test read \(busyWait.clock) in a loop at \(frameText(busyWait.at, frame: frame)), waiting \
            for it to move: virtual time moves only between jobs, never while one runs, so such a loop never ends \
            on its own. After a million reads that clock read real time for the rest of that job, so the loop could \
            end. Wait by sleeping instead (try await Task.sleep(for:), or clock.sleep(for:) on scheduler.clock).
            """, at: location)
    }

    private func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let tenths = Int((value * 10).rounded())
        return value >= 10 ? "\(Int(value.rounded())) s" : "\(tenths / 10).\(tenths % 10) s"
    }

    private var escapeCount: Int { runtime.foreignWorkCount + (state.testClock?.foreignAccessCount ?? 0) }

    private func reportAmbiguousSleeps(_ leftovers: VirtualRuntime.Leftovers, at location: MarbleFailure.Location) {
        for (start, sleep) in leftovers.ambiguousSleeps {
            guard let ambiguity = sleep.ambiguity else { continue }
            let (first, second) = ambiguity.other < sleep.duration ? (ambiguity.other, sleep.duration) : (sleep.duration, ambiguity.other)
            report(
                """
                a sleep on \(sleep.clockName) started at \(frameText(start, frame: frame)) has no duration that can be \
                told: the system clocks are real here (\(runtime.clocks.whyReal)), so Task.sleep hands over a deadline \
                on the real clock, and the duration read back from it lies between \(ambiguity.range.lowerBound) and \
                \(ambiguity.range.upperBound) (the task ran that long in real time before it slept): it could be \
                \(first) or \(second). It slept \(sleep.duration) of virtual time. Sleep right after computing the \
                deadline, or sleep on scheduler.clock
                """, at: location)
        }
    }

    private func reportMainActorEscapes(_ escapes: Int, at location: MarbleFailure.Location) {
        guard escapes > 0 else { return }
        report(
            """
            the code under test started \(escapes) main-actor job(s), but this test does not run on the main \
            actor, so they ran on the main queue in real time, outside the test scheduler. Mark the test \
            @MainActor (Swift Testing: @MainActor @Test; XCTest: a synchronous test method, which runs on the \
            main thread, its body in MainActor.assumeIsolated { }): the scheduler then runs main-actor work in \
            its loop, on virtual time
            """, at: location)
    }
}

extension TestScheduler {
    /// Whether a run that read the system clocks on virtual time warns that the test is not
    /// portable (on by default; `MARBLES_PORTABILITY_WARNING=0` turns it off for the process,
    /// MarblesTesting's `.noPortabilityWarning` trait for a test or a suite).
    @TaskLocal package static var warnsOfPortability = true

    /// After a run on Linux, where the system clocks read virtual time: when the code under test
    /// read one (`Date()`, `ContinuousClock.now`, `SuspendingClock.now`, `DispatchTime.now()`;
    /// sleeps' own reads, Swift Testing's and this library's left out, and a busy wait already
    /// reported), a warning, once per scheduler, that the test means something else on Apple
    /// platforms, where those clocks are real, with what to pass in for each clock.
    func noteSystemClockReads(at location: MarbleFailure.Location) {
        guard !state.reportedClockReads else { return }
        var reads = runtime.clocks.takeCodeReads()
        guard !reads.isEmpty, !VirtualClocks.portabilityWarningOff, Self.warnsOfPortability, warnsOfPortability else { return }
        if let busyWaitClock = state.rare?.busyWaitClock { reads.removeAll { $0.clock == busyWaitClock } }
        guard !reads.isEmpty else { return }
        state.reportedClockReads = true
        let which = reads.map { "\($0.clock) (\($0.reads) read\($0.reads == 1 ? "" : "s"))" }.joined(separator: ", ")
        let advice = reads.map { "  - " + Self.portableAdvice(for: $0.clock) }.joined(separator: "\n")
        reporter.report(
            MarbleFailure(
                message: """
                    portability: \(testName.map { "the test \"\($0)\" " } ?? "this test's code ")read \(which) inside \
                    scheduler.run. On Linux these read virtual time, so the test is exact here; on Apple platforms \
                    they read real time, and the same test can fail there. To be portable:
                    """ + "\n" + advice + "\n"
                        + """
                        MARBLES_PORTABLE=1 runs this suite with the clocks of Apple platforms. A Linux-only suite turns this \
                        warning off with the .noPortabilityWarning trait, or MARBLES_PORTABILITY_WARNING=0.
                        """, location: location, severity: .warning))
    }

    /// What to pass the code under test instead of reading `clock`.
    static func portableAdvice(for clock: String) -> String {
        switch clock {
        case "Date()": "Date(): take the date from a `now: () -> Date` the test sets from the scheduler"
        case "DispatchTime.now()":
            "DispatchTime.now(): asyncAfter takes no clock; schedule through scheduler.dispatchQueue (MarblesCombine) "
                + "where the code takes a scheduler, or nothing: on Linux it is exact as it is"
        default: "\(clock): pass scheduler.clock where the code takes a Clock"
        }
    }
}
