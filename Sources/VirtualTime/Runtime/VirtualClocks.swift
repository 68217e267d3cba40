internal import CRuntimeHooks
import MarbleCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The system clocks as the code under test reads them on the thread that drives a run.
///
/// On Linux the test executable's own `clock_gettime` (in `CClockInterposer`, which MarblesTesting
/// links into test executables; a program that links Marbles alone keeps libc's) answers the Swift
/// runtime's reads (`ContinuousClock.now`, `SuspendingClock.now`, every `Task.sleep` deadline)
/// and Foundation's `Date()` with virtual time, on the driving thread only: each clock reads
/// its base plus the scheduler's virtual time. Each clock reads its real time (the date: the real
/// date or the test's start date) at the virtual time the scheduler first drove; the bases are
/// taken at the first virtual reading, so a run that reads no clock pays nothing. A probe, once
/// per process (a read of `ContinuousClock.now` and one of `Date()`), tells whether the
/// interposition is in effect for both; when it is not (Apple platforms, a statically linked runtime),
/// the clocks stay real and sleeps are read back from their deadlines (``SleepDeadline``).
package final class VirtualClocks {
    /// What a run's clocks are.
    package enum Mode: Equatable {
        /// Not yet driven.
        case unknown
        /// `now` and `Date()` read virtual time; sleeps are exact.
        case virtual
        /// The clocks are real; sleeps are read back from their deadlines.
        case readBack
    }

    /// The run's C object (its clocks, the code's reads, its members), in an allocation of its
    /// own: C holds its address while the scheduler drives.
    private let storage: UnsafeMutablePointer<marbles_run>
    /// Whether the interposer may be used (tests of the read-back path turn it off before the
    /// first run).
    package var enabled: Bool {
        get { state.enabled }
        set { state.enabled = newValue }
    }
    /// What this run's clocks are.
    package var mode: Mode { state.mode }
    /// Event-loop timers handed to the run and not yet due (a daemon's: Vapor's per-loop date
    /// cache ticks every second forever), and whether the test body returned. A run whose body
    /// returned and that has nothing else left ends rather than tick through virtual days.
    package var loopTimers: Int {
        get { state.loopTimers }
        set { state.loopTimers = newValue }
    }
    package var bodyReturned: Bool {
        get { state.bodyReturned }
        set { state.bodyReturned = newValue }
    }
    // The scheduler's thread's, read on every step (`bodyReturned` at each step of a drive: as
    // stored properties of their own, two checked accesses a step, 3% of an empty run's
    // instructions, callgrind, session 32).
    // measured: see TestScheduler.state (with the harness's and the runtime's).
    @exclusivity(unchecked) private var state = (enabled: !VirtualClocks.portable, mode: Mode.unknown, loopTimers: 0, bodyReturned: false)

    init(virtual: VirtualTimeScheduler, startDate: Date?) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: marbles_run())
        storage.pointee.scheduler = Unmanaged.passUnretained(virtual).toOpaque()
        storage.pointee.spin_now_ns = -1
        if let startDate {
            storage.pointee.has_start_date = true
            storage.pointee.start_date_ns = Int64((startDate.timeIntervalSince1970 * 1e9).rounded())
        }
    }

    deinit {
        if let members = storage.pointee.members { marbles_members_release(members) }
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// The run's C object, as the route carries it.
    var run: UnsafeMutablePointer<marbles_run> { storage }

    /// The run's members, once work was handed to another thread.
    var tracker: OpaquePointer? { storage.pointee.members }

    /// Who takes the Dispatch timers and sleeps submitted on the driving thread, and whose
    /// executor takes the jobs its members hand back.
    func deliverTimers(to runtime: VirtualRuntime) {
        storage.pointee.owner = Unmanaged.passUnretained(runtime).toOpaque()
        storage.pointee.driver = Unmanaged.passUnretained(runtime.executor).toOpaque()
    }

    /// Cuts the members off from the runtime, which is going (see ``VirtualRuntime``'s deinit),
    /// or whose test body on virtual time is over: late work of the test takes its usual paths,
    /// and the run no longer counts as alive (an event loop whose timer it set sets it again).
    package func detachTracker() {
        if let members = storage.pointee.members { marbles_members_detach(members) }
        storage.pointee.owner = nil
        storage.pointee.driver = nil
    }

    /// Whether the route's clock reads go to this run's clocks while the scheduler drives (they
    /// are virtual), else real. The first call decides which; the bases are taken at the first
    /// virtual reading.
    func route(at now: Duration) -> Bool {
        if mode == .unknown { start(at: now) }
        return mode == .virtual
    }

    private func start(at now: Duration) {
        state.mode = enabled && Self.isAvailable ? .virtual : .readBack
        // Real clocks where they could be virtual (MARBLES_PORTABLE=1): the reads are counted.
        storage.pointee.count_real_reads = state.mode == .readBack && Self.isAvailable
        storage.pointee.origin_ns = VirtualTimeScheduler.nanos(now)
    }

    /// Whether the system clocks read virtual time on a driving thread: the interposer is linked
    /// (test executables, through MarblesTesting) and answers both `ContinuousClock.now` (the
    /// runtime's reads: every `Task.sleep` deadline) and `Date()` (Foundation's). Probed once per
    /// process, with clocks standing still at zero on the probing thread.
    static let isAvailable: Bool = {
        let answered = probe()
        return answered.continuous && answered.date
    }()

    /// Which system clocks the interposer answers on a driving thread (both false where it is not
    /// linked).
    package static func probe() -> (continuous: Bool, date: Bool) {
        guard marbles_clock_interposer_next_name() != nil else { return (false, false) }
        // No scheduler: the clocks stand still at zero.
        var probe = marbles_run()
        probe.bases_set = true
        probe.spin_now_ns = -1
        return withUnsafeMutablePointer(to: &probe) { pointer in
            let previous = marbles_route_set(
                marbles_route(driver: nil, run: pointer, virtual_clocks: true, standin: marbles_executor_ref()))
            defer { marbles_route_set(previous) }
            _ = ContinuousClock.now
            let continuous = pointer.pointee.reads == 1
            let date = Date()
            return (continuous, pointer.pointee.reads == 2 && date.timeIntervalSince1970 == 0)
        }
    }

    /// Whether `MARBLES_PORTABLE` asks for the clocks of Apple platforms (`1`, `true` or `yes`):
    /// the system clocks stay real inside a run and sleeps are read back from their deadlines,
    /// so a Linux run shows what a Mac would.
    package static let portable = isPortable(ProcessInfo.processInfo.environment["MARBLES_PORTABLE"])

    package static func isPortable(_ value: String?) -> Bool {
        guard let value = value?.lowercased() else { return false }
        return ["1", "true", "yes"].contains(value)
    }

    /// Whether `MARBLES_PORTABILITY_WARNING` turns the portability warning off (`0`, `false` or `no`).
    package static let portabilityWarningOff = isOff(ProcessInfo.processInfo.environment["MARBLES_PORTABILITY_WARNING"])

    /// Whether an environment variable's value turns something off (`0`, `false` or `no`).
    package static func isOff(_ value: String?) -> Bool {
        guard let value = value?.lowercased() else { return false }
        return ["0", "false", "no"].contains(value)
    }

    /// Why the clocks are real, for a failure message.
    package var whyReal: String {
        if !enabled, Self.portable { return "MARBLES_PORTABLE=1 keeps them real, as on Apple platforms" }
        if !enabled { return "virtual clocks are turned off for this scheduler" }
        #if os(Linux)
            return
                "clock reads could not be interposed: the test executable links the Swift runtime statically, or another library answers clock_gettime first"
        #else
            return "a process cannot interpose clock reads on this platform"
        #endif
    }

    // MARK: The code under test's reads (the portability note)

    /// A sleep whose deadline came from `clock`'s `now` (`Task.sleep(for:)` reads
    /// `ContinuousClock.now`) arrived: that read was the sleep's, not the code's (`nil`: a
    /// deadline the runtime's hook saw, on the continuous clock as a rule).
    func noteDeadlineSleep(on clock: Any.Type?) {
        guard state.mode == .virtual || storage.pointee.count_real_reads else { return }
        if clock == nil || clock == ContinuousClock.self {
            if storage.pointee.code_reads.2 > 0 { storage.pointee.code_reads.2 -= 1 }
        } else if clock == SuspendingClock.self {
            if storage.pointee.code_reads.1 > 0 { storage.pointee.code_reads.1 -= 1 }
        }
    }

    /// Runs `body`, whose clock reads are this library's own, without counting them.
    @inline(__always) func uncounted<T>(_ body: () -> T) -> T {
        guard state.mode == .virtual || storage.pointee.count_real_reads else { return body() }
        let saved = (storage.pointee.code_reads.0, storage.pointee.code_reads.1, storage.pointee.code_reads.2)
        defer {
            storage.pointee.code_reads.0 = saved.0
            storage.pointee.code_reads.1 = saved.1
            storage.pointee.code_reads.2 = saved.2
        }
        return body()
    }

    /// The system clocks the code under test read on virtual time since the last call (sleeps'
    /// own reads left out), by name, e.g. `("Date()", 2)`; empty where the clocks are real.
    package func takeCodeReads() -> [(clock: String, reads: Int)] {
        // Most runs read no clock: no list is made for them.
        guard state.mode == .virtual,
            storage.pointee.code_reads.0 | storage.pointee.code_reads.2 | storage.pointee.code_reads.1
                | storage.pointee.code_reads.3 != 0
        else { return [] }
        let counts = readCounts
        storage.pointee.code_reads.3 = 0
        storage.pointee.code_reads.0 = 0
        storage.pointee.code_reads.1 = 0
        storage.pointee.code_reads.2 = 0
        return counts
    }

    /// The counts of reads by clock, those above zero.
    private var readCounts: [(clock: String, reads: Int)] {
        [
            ("Date()", storage.pointee.code_reads.0), ("ContinuousClock.now", storage.pointee.code_reads.2),
            ("SuspendingClock.now", storage.pointee.code_reads.1), ("DispatchTime.now()", storage.pointee.code_reads.3),
        ].filter { $0.1 > 0 }.map { ($0.0, Int($0.1)) }
    }

    /// Under real clocks that could be virtual (MARBLES_PORTABLE=1): the system clocks the code
    /// under test read so far (sleeps' own reads left out), by name; empty otherwise.
    package func realReads() -> [(clock: String, reads: Int)] {
        storage.pointee.count_real_reads ? readCounts : []
    }

    // MARK: Busy waits

    /// A job that read a clock in a loop while virtual time stood still, since the last call:
    /// the clock's name and the virtual time; the interposer then let that reading move with
    /// real time, so the loop ended.
    func takeBusyWait() -> (clock: String, at: Duration)? {
        guard state.mode == .virtual, storage.pointee.spins > 0 else { return nil }
        storage.pointee.spins = 0
        let clock: String
        switch storage.pointee.spin_clock {
        case 0: clock = "Date()"
        case 1: clock = "SuspendingClock.now"
        case 3: clock = "DispatchTime.now()"
        default: clock = "ContinuousClock.now"
        }
        return (clock, .nanoseconds(storage.pointee.spin_at_ns))
    }
}
