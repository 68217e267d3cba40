internal import CRuntimeHooks

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension VirtualRuntime {
    /// What a flush leaves behind for the scheduler to report, each handed over once.
    package struct Leftovers {
        /// Sleeps whose duration could not be told from their deadline, with their start.
        package var ambiguousSleeps: [(start: Duration, sleep: SleepDeadline)]
        /// Main-actor jobs sent to the real main queue since the last flush (the test is not
        /// on the main actor).
        package var mainActorEscapes: Int
        /// Work handed to other threads that was still out when the bound passed.
        package var overdue: [ForeignWork.Overdue] = []
        /// A job that waited for a virtual clock to move, reading it in a loop: the clock, and the
        /// virtual time it began at.
        package var busyWait: (clock: String, at: Duration)?
        /// Work that stayed on real time (a Dispatch timer source scheduled off the driving
        /// thread, or on the wall clock).
        package var escapes: [ForeignWork.Escape] = []
        /// Every member of the run blocked in a known wait with nothing due, at that time.
        package var deadlock: (at: Duration, members: [ForeignWork.BlockedMember])?
    }
}

extension VirtualRuntime {
    /// Main-queue blocks from tracked work on other threads (the test runs on the main actor):
    /// they run here, on the main actor, at this instant, before the jobs back from other
    /// threads, ordered by the work that submitted them (arrival order within one), so which
    /// thread was faster does not show.
    func runHeldMainWork(_ held: [marbles_handoff]) {
        guard !held.isEmpty else { return }
        for block in ForeignWork.inSubmissionOrder(held, sequence: \.sequence) {
            if executor.drivesOnMainActor {
                block.work(block.context)
            } else if let main = marbles_main_queue() {
                executor.noteMainActorEscape()
                marbles_members_submit_untracked(main, block.context, block.work)
            }
        }
    }
}

// MARK: Answers from threads the run does not track

extension VirtualRuntime {
    /// Waits up to ``answerWait`` for a job to come back; whether one did. After a wait that
    /// saw nothing, never waits again.
    func waitForAnswer() -> Bool {
        let budget = Int(answerWait.clampedNanoseconds / 1000)
        guard budget > 0 else { return false }
        guard poll(forMicroseconds: budget, until: { executor.hasReturnedJobs || executor.hasWaitingJobs }) else {
            answerWait = .zero
            return false
        }
        executor.acceptUntrackedAnswers()
        return true
    }

    /// Real I/O of the run ended (a URLSession request came back): its answer reaches the run
    /// from a thread outside it a moment later (the session's delegate queue), and lands at this
    /// instant. Waits up to 500 ms of real time for it (a job back, a member signalled, work
    /// handed over) before time moves, and ends as soon as something comes; whether it did.
    /// (Measured: a `dataTask` completion handler comes about 110 ms after the request's last
    /// source is cancelled, on Swift 6.3.1's Foundation.)
    func waitForIOAnswer(_ tracker: OpaquePointer) -> Bool {
        let came = poll(forMicroseconds: 500_000) {
            executor.hasReturnedJobs || executor.hasWaitingJobs || ForeignWork.out(tracker) > 0
        }
        if came { executor.acceptUntrackedAnswers() }
        return came
    }

    /// Polls `arrived` for up to `budget` µs of real time, in pauses that grow from 20 µs to
    /// 2 ms; whether it came true. Counted in pauses slept, not read from a clock: the driving
    /// thread's clocks are virtual.
    private func poll(forMicroseconds budget: Int, until arrived: () -> Bool) -> Bool {
        var slept = 0
        var pause = 20
        while !arrived() {
            if slept >= budget { return false }
            usleep(UInt32(pause))
            slept += pause
            pause = min(pause * 2, 2000)
        }
        return true
    }
}
