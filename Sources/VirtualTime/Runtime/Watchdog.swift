package import Atomics
import MarbleCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Watches the runs under way in the process, so that one that never finishes says what it is
/// doing: a run still busy after ``limit`` ticks of real time (a minute) prints, to standard error, the test, its
/// virtual time and what it is waiting for, and again after each further ``limit`` (as Kotlin's
/// `runTest` reports its timeout), so a CI log names the culprit of a hang.
///
/// A thread of its own, started with the first run, looks every 20 ms and publishes the real time
/// it looked at; each drive registers with that time when it starts and leaves when it ends (a
/// lock each), and reads no clock.
package enum Watchdog {
    /// The unit of ``limit``, in nanoseconds of real time (1 s; tests shorten it).
    package static let tickNanoseconds = ManagedAtomic<Int>(1_000_000_000)
    /// How many ticks a run may take before it is reported, and between two reports (60).
    package static let limit = ManagedAtomic<Int>(60)
    /// Where reports go (standard error; tests collect them).
    package static var sink: @Sendable (String) -> Void {
        get { lock.withLock { currentSink } }
        set { lock.withLock { currentSink = newValue } }
    }

    private static let lock = Lock()
    private nonisolated(unsafe) static var currentSink: @Sendable (String) -> Void = { line in
        let text = Array((line + "\n").utf8)
        _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
    /// The drives under way, in slots (a drive keeps its slot's index): no allocation and no
    /// hashing per drive. Beyond the last slot, a drive is not watched.
    private nonisolated(unsafe) static var slots = [ForeignWork?](repeating: nil, count: 128)
    /// The real time (ns, monotonic) of the watchdog's last look.
    private static let lastLook = ManagedAtomic<Int>(0)
    private static let started: Void = {
        lastLook.store(realNanoseconds(), ordering: .relaxed)
        var thread = pthread_t()
        #if canImport(Darwin)
            var created: pthread_t?
            pthread_create(&created, nil, { _ in Watchdog.watch() }, nil)
        #else
            pthread_create(&thread, nil, { _ in Watchdog.watch() }, nil)
            pthread_detach(thread)
        #endif
    }()

    /// A drive begins: what it shows the watchdog lives in its runtime's ``ForeignWork`` (the
    /// name, the start, the reports so far, the slot), so a drive allocates nothing.
    static func begin(_ drive: ForeignWork) {
        _ = started
        let start = lastLook.load(ordering: .relaxed)
        lock.withLock {
            guard let free = slots.firstIndex(where: { $0 == nil }) else { return }
            slots[free] = drive
            drive.watch = (start, 0, free)
        }
    }

    static func end(_ drive: ForeignWork) {
        lock.withLock {
            guard drive.watch.slot >= 0 else { return }
            slots[drive.watch.slot] = nil
            drive.watch.slot = -1
        }
    }

    private static func watch() -> UnsafeMutableRawPointer? {
        while true {
            var pause = timespec(tv_sec: 0, tv_nsec: 20_000_000)
            nanosleep(&pause, nil)
            let now = realNanoseconds()
            lastLook.store(now, ordering: .relaxed)
            let every = max(tickNanoseconds.load(ordering: .relaxed), 1_000_000) * max(limit.load(ordering: .relaxed), 1)
            let due: [(ForeignWork, Duration)] = lock.withLock {
                slots.compactMap { drive in
                    guard let drive else { return nil }
                    let busy = now - drive.watch.start
                    guard busy >= every * (drive.watch.reported + 1) else { return nil }
                    drive.watch.reported += 1
                    return (drive, .nanoseconds(every * drive.watch.reported))
                }
            }
            let sink = self.sink
            for (drive, real) in due { sink(report(drive, busy: real)) }
        }
    }

    /// Real monotonic time, read here (this module's reads are never virtual).
    private static func realNanoseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1_000_000_000 + now.tv_nsec
    }

    /// The line printed for a drive busy for `real` time.
    static func report(_ drive: ForeignWork, busy real: Duration) -> String {
        let virtual = Duration.nanoseconds(drive.now.load(ordering: .relaxed))
        let waiting =
            drive.pending.load(ordering: .relaxed) > 0
            ? "waiting for work it handed to another thread (a DispatchQueue block, a Thread, an actor's executor)"
            : "running its jobs and scheduled actions (a loop that never ends, or work that never settles)"
        // The time is the last step's: the work running now is at that instant or the next one due.
        return "marbles: \(drive.watchName) has been running for \(real) of real time, past virtual time \(virtual): it is \(waiting)"
    }
}
