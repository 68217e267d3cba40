import Atomics
internal import CRuntimeHooks
import MarbleCore

/// Work the code under test hands to other threads inside a run, as the runtime waits for it:
/// blocks and functions submitted to a `DispatchQueue`, Foundation `Thread`s, actors whose
/// executor runs jobs on a queue (their jobs go through `dispatch_async`). The interposer
/// (CClockInterposer, test executables on Linux) wraps each one submitted on the driving thread,
/// or from work already tracked, so that the runtime's tracker (CRuntimeHooks, made at the first
/// submission and kept in the clocks' storage) knows how much is out.
///
/// While any is out, virtual time does not move: the driver waits in real time, at most
/// ``VirtualRuntime/foreignWorkTimeout``, at the current instant. Jobs that come back from other
/// threads (a continuation resumed on a queue, an actor's job done) are held apart by the
/// executor, then run at that instant after the local work, ordered by the submission they came
/// from, so the outcome does not depend on which thread was faster. A test that hands nothing
/// over never waits, and pays two loads per step.
///
/// Dispatch timers (`asyncAfter`, blocks, `_f` forms, `DispatchWorkItem`s) submitted on the
/// driving thread, where the clocks are virtual (Linux), are due at virtual time instead: at
/// their deadline their work goes to its queue as tracked work. The main queue's work, in a test
/// on the main actor, runs in the scheduler's loop.
package enum ForeignWork {
    /// Work that was still out when the bound passed.
    package struct Overdue: Equatable {
        /// `block`, `function`, `thread` or `timer`.
        package var kind: String
        /// The queue's label (or what the work is).
        package var label: String
        /// The virtual time it was submitted at.
        package var submitted: Duration
        /// How long it had been out, in real time.
        package var age: Duration
        /// What it waits on for real, when the run cannot know ("a DispatchSemaphore made
        /// outside the run"); `nil`: it works, or waits on what the run does not see (a lock, I/O).
        package var waitsOn: String? = nil
    }

    /// `items` (back from other threads) in the order of the submissions they came from: by the
    /// sequence number of the tracked work (`sequence`; negative: untracked, last), arrival order
    /// within one, so that which thread was faster does not show.
    static func inSubmissionOrder<Item>(_ items: [Item], sequence: (Item) -> Int64) -> [Item] {
        items.enumerated().sorted {
            let a = sequence($0.element) < 0 ? Int64.max : sequence($0.element)
            let b = sequence($1.element) < 0 ? Int64.max : sequence($1.element)
            return a != b ? a < b : $0.offset < $1.offset
        }.map(\.element)
    }

    /// How much of `tracker`'s work is out.
    @inline(__always) static func out(_ tracker: OpaquePointer) -> Int {
        UnsafeAtomic<Int>(at: marbles_members_pending_address(tracker).assumingMemoryBound(to: UnsafeAtomic<Int>.Storage.self))
            .load(ordering: .acquiring)
    }

    /// Stamps `now` on work submitted from other threads while the driver settles.
    static func setNow(_ tracker: OpaquePointer, _ now: Int64) {
        UnsafeAtomic<Int64>(at: marbles_members_now_address(tracker).assumingMemoryBound(to: UnsafeAtomic<Int64>.Storage.self))
            .store(now, ordering: .relaxed)
    }

    /// Waits until no work of `tracker` is out, at most `timeout`; returns what was still out
    /// then (now abandoned: it no longer holds the run). Returns early, with nothing overdue,
    /// when main-actor work the driver holds is what the work out waits for (see
    /// `marbles_settle_result`): the driver runs it, then waits again.
    static func settle(_ tracker: OpaquePointer, timeout: Duration, jobsHeld: UnsafeRawPointer) -> [Overdue] {
        guard waitForMembers(tracker, timeout: Int(timeout.clampedNanoseconds), jobsHeld: jobsHeld) == .timedOut else { return [] }
        return records(capacity: 64, of: marbles_overdue.self) { marbles_members_abandon(tracker, $0, $1) }.map { row in
            var row = row
            let kind =
                switch row.kind {
                case marbles_work_function: "function"
                case marbles_work_thread: "thread"
                case marbles_work_timer: "timer"
                case marbles_work_io: "io"
                default: "block"
                }
            return Overdue(
                kind: kind, label: text(of: &row.label), submitted: .nanoseconds(row.submitted_ns), age: .nanoseconds(row.age_ns),
                waitsOn: row.waits_on.map { String(cString: $0) })
        }
    }
}

extension ForeignWork {
    enum Settled { case drained, timedOut, mainNeeded }

    /// How long work out may stand still while main-actor work waits for the driver before the
    /// driver runs that work anyway: the work out may be waiting for it (a semaphore the
    /// main-actor work signals), which it could never get otherwise.
    static let stallNanoseconds = 100_000_000

    /// Waits, at most `timeout` ns of real time, until every member is done or blocked in a known
    /// wait; `.mainNeeded` when main-actor work waits for the driver while the work out cannot go
    /// on without it (a `DispatchQueue.main.sync`, or held work while the work out stood still for
    /// a stall). `jobsHeld`: the executor's count of jobs back from members (an atomic `Int`).
    static func waitForMembers(_ tracker: OpaquePointer, timeout: Int, jobsHeld: UnsafeRawPointer) -> Settled {
        let start = Watchdog.realNanoseconds()
        var stall = start + stallNanoseconds
        var seen = marbles_members_watch(tracker, nil, 0)
        let returned = UnsafeAtomic<Int>(
            at: UnsafeMutablePointer(mutating: jobsHeld.assumingMemoryBound(to: UnsafeAtomic<Int>.Storage.self)))
        while seen.working > 0 {
            if seen.held_sync > 0 { return .mainNeeded }
            // Jobs come back without a signal: look again at least once a stall, or every
            // millisecond while only real I/O is out (what comes back then is its answer, which
            // the I/O may need to go on: URLSession's own tasks).
            let now = Watchdog.realNanoseconds()
            let look = seen.working <= seen.io_out ? 1_000_000 : stall - now
            let state = withUnsafePointer(to: seen) { marbles_members_watch(tracker, $0, Int64(max(min(look, start + timeout - now), 0))) }
            let held = state.held > 0 || returned.load(ordering: .acquiring) > 0
            if state.working <= 0 { return .drained }
            if held && state.working <= state.io_out { return .mainNeeded }
            let progress = state.working != seen.working || state.begun != seen.begun
            seen = state
            let after = Watchdog.realNanoseconds()
            if progress {
                stall = after + stallNanoseconds
            } else if after >= start + timeout {
                return .timedOut
            } else if after >= stall {
                if held { return .mainNeeded }
                stall = after + stallNanoseconds
            }
        }
        return .drained
    }

    /// Work that stayed on real time inside a run, as the interposer noted it.
    package struct Escape: Equatable, Sendable {
        /// What it is ("a Dispatch timer source", "a run-loop timer").
        package var what: String
        /// Where it went, said in full ("on queue 'x' runs on real time", "in run-loop mode 'x'
        /// is left to its run loop, …").
        package var place: String
        /// The virtual time it was armed at.
        package var at: Duration
    }

    /// The typed records a tracker fills into a buffer of `capacity` (`fill` returns how many
    /// there were; at most `capacity` are read).
    static func records<Record>(capacity: Int, of _: Record.Type, _ fill: (UnsafeMutablePointer<Record>, Int) -> Int) -> [Record] {
        let buffer = UnsafeMutablePointer<Record>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        let count = min(fill(buffer, capacity), capacity)
        return (0..<max(count, 0)).map { buffer[$0] }
    }

    /// A C string field of a record.
    static func text<Field>(of field: inout Field) -> String {
        withUnsafeBytes(of: &field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// The escapes `tracker` noted since the last call.
    static func takeEscapes(_ tracker: OpaquePointer) -> [Escape] {
        records(capacity: 4, of: marbles_escape.self) { marbles_members_take_escapes(tracker, $0, $1) }.map { row in
            var row = row
            return Escape(what: text(of: &row.what), place: text(of: &row.place), at: .nanoseconds(row.at_ns))
        }
    }
}

/// A Dispatch timer (or the main queue's work) submitted on the driving thread, handed to its runtime.
let dispatchTimer:
    @convention(c) (
        UnsafeMutableRawPointer, UnsafeMutableRawPointer?, Bool, Int64, UnsafeMutableRawPointer?,
        @convention(c) (UnsafeMutableRawPointer?) -> Void
    ) -> Void = { owner, queue, isMain, remaining, context, work in
        Unmanaged<VirtualRuntime>.fromOpaque(owner)._withUnsafeGuaranteedRef {
            $0.scheduleDispatchWork(on: queue, isMain: isMain, after: .nanoseconds(remaining), context: context, work: work)
        }
    }

extension VirtualRuntime {
    /// A Dispatch timer's work (or the main queue's, `after` zero), due `after` from now on
    /// virtual time (no queue: a timer source's wake-up, run here on the driving thread, which
    /// decides what to deliver): then the main queue's work runs here when the test is on the main actor
    /// (else it goes to the real main queue, reported as main-actor work that escaped), and any
    /// other queue's goes to its queue as tracked work.
    func scheduleDispatchWork(
        on queue: UnsafeMutableRawPointer?, isMain: Bool, after delay: Duration, context: UnsafeMutableRawPointer?,
        work: @escaping @convention(c) (UnsafeMutableRawPointer?) -> Void
    ) {
        guard let tracker = clocks.tracker else { return }
        // An identity check of two C function pointers (they have no `==`; neither is called
        // through the cast): the interposer's event-loop timer hand-off, a daemon's.
        let loopTimer = unsafeBitCast(work, to: UnsafeRawPointer.self) == unsafeBitCast(marbles_loop_timer_work, to: UnsafeRawPointer?.self)
        if loopTimer { clocks.loopTimers += 1 }
        scheduleWake(at: virtualNow + max(delay, .zero)) { [executor, clocks] in
            if loopTimer { clocks.loopTimers -= 1 }
            guard let queue else { return work(context) }  // a timer source's wake-up, on this thread
            if isMain, executor.drivesOnMainActor {
                work(context)
            } else if isMain {
                executor.noteMainActorEscape()
                marbles_members_submit_untracked(queue, context, work)
            } else {
                marbles_members_submit(tracker, queue, marbles_work_timer, context, work)
            }
        }
    }
}

extension ForeignWork {
    /// A member of the run blocked in a known wait, as a deadlock names it.
    package struct BlockedMember: Equatable, Sendable {
        /// What the member is: "a block on queue 'x'", "a Thread", "a timer's work on queue 'x'".
        package var member: String
        /// What it waits on: "a sleep", "a DispatchSemaphore", "a DispatchGroup", "a condition".
        package var waitsOn: String
        /// The virtual time it began to wait at, and its deadline (`nil`: none).
        package var since: Duration
        package var deadline: Duration?
    }

    /// The members of `tracker`'s run blocked in known waits (none: nothing is).
    static func blockedMembers(_ tracker: OpaquePointer) -> [BlockedMember] {
        records(capacity: 16, of: marbles_wait_info.self) { marbles_members_blocked(tracker, $0, $1) }.map { info in
            var info = info
            let label = text(of: &info.member)
            let member =
                switch info.member_kind {
                case marbles_work_thread: "a Thread"
                case marbles_work_timer: "a timer's work on queue '\(label)'"
                default: "a block on queue '\(label)'"
                }
            let waitsOn =
                switch info.kind {
                case marbles_wait_sleep: "a sleep"
                case marbles_wait_semaphore: "a DispatchSemaphore"
                case marbles_wait_group: "a DispatchGroup"
                default: "a condition (NSCondition, pthread_cond_wait)"
                }
            return BlockedMember(
                member: member, waitsOn: waitsOn, since: .nanoseconds(info.since_ns),
                deadline: info.deadline_ns < 0 ? nil : .nanoseconds(info.deadline_ns))
        }
    }
}

extension VirtualRuntime {
    /// Takes what the run's members left for the driver: the wake-ups they asked for (timers
    /// they set, their waits' deadlines) go on virtual time in the order asked, each due where
    /// the member computed it; the main-queue blocks held for the loop are returned.
    func takeHandoffs(_ tracker: OpaquePointer) -> [marbles_handoff] {
        var held: [marbles_handoff] = []
        while true {
            let taken = ForeignWork.records(capacity: 32, of: marbles_handoff.self) { marbles_members_take(tracker, $0, $1) }
            for handoff in taken {
                guard !handoff.held else {
                    held.append(handoff)
                    continue
                }
                scheduleDispatchWork(
                    on: handoff.queue, isMain: handoff.is_main, after: .nanoseconds(handoff.due_ns) - virtualNow,
                    context: handoff.context, work: handoff.work)
            }
            if taken.count < 32 { return held }
        }
    }
}
