internal import CConcurrencyHooks
import MarbleCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The system clocks as the code under test reads them on the thread that drives a run.
///
/// On Linux the test executable's own `clock_gettime` (in `CConcurrencyHooks`) answers the Swift
/// runtime's reads (`ContinuousClock.now`, `SuspendingClock.now`, every `Task.sleep` deadline)
/// and Foundation's `Date()` with virtual time, on the driving thread only: each clock reads
/// its base plus the scheduler's virtual time. Each clock reads its real time (the date: the real
/// date or the test's start date) at the virtual time the scheduler first drove; the bases are
/// taken at the first virtual reading, so a run that reads no clock pays nothing. A probe, once
/// per process (a read of `ContinuousClock.now` through the runtime), tells whether the
/// interposition is in effect; when it is not (Apple platforms, a statically linked runtime),
/// the clocks stay real and sleeps are read back from their deadlines (``SleepDeadline``).
final class VirtualClocks {
    /// What a run's clocks are.
    enum Mode: Equatable {
        /// Not yet driven.
        case unknown
        /// `now` and `Date()` read virtual time; sleeps are exact.
        case virtual
        /// The clocks are real; sleeps are read back from their deadlines.
        case readBack
    }

    // What the C interposer reads, in the object itself (an allocation a test fewer): the
    // first stored property of this root class, only ever used through `storage`.
    private var inlineStorage: marbles_virtual_clocks
    private var storage: UnsafeMutablePointer<marbles_virtual_clocks> {
        firstStoredProperty(of: self, as: marbles_virtual_clocks.self)
    }
    // `enabled` and `mode` are the scheduler's thread's (read on every step): no runtime
    // exclusivity checks.
    /// Whether the interposer may be used (tests of the read-back path turn it off before the
    /// first run).
    @exclusivity(unchecked) var enabled = true
    @exclusivity(unchecked) private(set) var mode = Mode.unknown
    /// Takes a sleeper that the default executor handed to Dispatch on the driving thread, with
    /// the time left to its deadline and its clock (set by the runtime, cleared when it goes).
    unowned(unsafe) var runtime: VirtualRuntime?

    init(virtual: VirtualTimeScheduler, startDate: Date?) {
        inlineStorage = marbles_virtual_clocks(
            bases_set: false, has_start_date: startDate != nil,
            start_date_ns: startDate.map { Int64(($0.timeIntervalSince1970 * 1e9).rounded()) } ?? 0, origin_ns: 0,
            realtime_base_ns: 0, monotonic_base_ns: 0, boottime_base_ns: 0,
            now_ns: { context in
                Unmanaged<VirtualTimeScheduler>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.nowNanoseconds }
            },
            context: Unmanaged.passUnretained(virtual).toOpaque(), reads: 0,
            sleep: { owner, job, remaining, clock in
                let kind: Any.Type = clock == 2 ? SuspendingClock.self : ContinuousClock.self
                Unmanaged<VirtualClocks>.fromOpaque(owner)._withUnsafeGuaranteedRef {
                    $0.runtime?.scheduleSleep(
                        unsafeBitCast(job, to: UnownedJob.self), exact: .nanoseconds(remaining), remaining: .nanoseconds(remaining),
                        at: .now, clock: kind)
                }
            }, owner: nil)
        assert(isFirstStoredProperty(of: self, &inlineStorage))
        storage.pointee.owner = Unmanaged.passUnretained(self).toOpaque()
    }

    /// Runs `body` with this thread's clocks virtual (when they can be); the first call decides
    /// which (the bases are taken at the first virtual reading).
    func reading<T>(at now: Duration, _ body: () throws -> T) rethrows -> T {
        if mode == .unknown { start(at: now) }
        guard mode == .virtual else { return try body() }
        let previous = marbles_virtual_clocks_set(storage)
        defer { marbles_virtual_clocks_set(previous) }
        return try body()
    }

    private func start(at now: Duration) {
        mode = enabled && Self.isAvailable ? .virtual : .readBack
        storage.pointee.origin_ns = VirtualTimeScheduler.nanos(now)
    }

    /// Whether `ContinuousClock.now` reaches the interposer (and so every runtime clock read):
    /// probed once per process, with clocks standing still at zero on the probing thread.
    static let isAvailable: Bool = {
        guard marbles_virtual_clocks_linked() else { return false }
        var probe = marbles_virtual_clocks(
            bases_set: true, has_start_date: false, start_date_ns: 0, origin_ns: 0, realtime_base_ns: 0, monotonic_base_ns: 0,
            boottime_base_ns: 0, now_ns: { _ in 0 },
            context: UnsafeMutableRawPointer(bitPattern: 1)!, reads: 0, sleep: nil, owner: nil)
        return withUnsafeMutablePointer(to: &probe) { pointer in
            let previous = marbles_virtual_clocks_set(pointer)
            defer { marbles_virtual_clocks_set(previous) }
            return marbles_virtual_clocks_probe()
        }
    }()

    /// Why the clocks are real, for a failure message.
    var whyReal: String {
        if !enabled { return "virtual clocks are turned off for this scheduler" }
        #if os(Linux)
            return
                "clock reads could not be interposed: the test executable links the Swift runtime statically, or another library answers clock_gettime first"
        #else
            return "a process cannot interpose clock reads on this platform"
        #endif
    }
}
