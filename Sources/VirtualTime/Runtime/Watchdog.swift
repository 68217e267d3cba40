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
    /// What one drive shows the watchdog.
    final class Drive: @unchecked Sendable {
        let test: String
        let foreign: ForeignWork
        let start: Int
        var reported = 0

        init(test: String, foreign: ForeignWork, start: Int) {
            self.test = test
            self.foreign = foreign
            self.start = start
        }
    }

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
    private nonisolated(unsafe) static var drives: [ObjectIdentifier: Drive] = [:]
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

    /// A drive of `test` begins (the returned value ends it).
    static func begin(test: String, foreign: ForeignWork) -> Drive {
        _ = started
        let drive = Drive(test: test, foreign: foreign, start: lastLook.load(ordering: .relaxed))
        lock.withLock { drives[ObjectIdentifier(drive)] = drive }
        return drive
    }

    static func end(_ drive: Drive) {
        _ = lock.withLock { drives.removeValue(forKey: ObjectIdentifier(drive)) }
    }

    private static func watch() -> UnsafeMutableRawPointer? {
        while true {
            var pause = timespec(tv_sec: 0, tv_nsec: 20_000_000)
            nanosleep(&pause, nil)
            let now = realNanoseconds()
            lastLook.store(now, ordering: .relaxed)
            let every = max(tickNanoseconds.load(ordering: .relaxed), 1_000_000) * max(limit.load(ordering: .relaxed), 1)
            let due: [(Drive, Duration)] = lock.withLock {
                drives.values.compactMap { drive in
                    let busy = now - drive.start
                    guard busy >= every * (drive.reported + 1) else { return nil }
                    drive.reported += 1
                    return (drive, .nanoseconds(every * drive.reported))
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
    static func report(_ drive: Drive, busy real: Duration) -> String {
        let virtual = Duration.nanoseconds(drive.foreign.now.load(ordering: .relaxed))
        let waiting =
            drive.foreign.pending.load(ordering: .relaxed) > 0
            ? "waiting for work it handed to another thread (a DispatchQueue block, a Thread, an actor's executor)"
            : "running its jobs and scheduled actions (a loop that never ends, or work that never settles)"
        // The time is the last step's: the work running now is at that instant or the next one due.
        return "marbles: \(drive.test) has been running for \(real) of real time, past virtual time \(virtual): it is \(waiting)"
    }
}
