package import Atomics
internal import CRuntimeHooks
import MarbleCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Watches the runs under way in the process, so that one that never finishes says what it is
/// doing: a run still busy after ``limit`` ticks of real time (a minute) prints, to standard
/// error, the test, the virtual time it had passed and whether it waits for work on another
/// thread, and again after each further ``limit`` (as Kotlin's `runTest` reports its timeout),
/// so a CI log names the culprit of a hang.
///
/// A thread of its own, started with the first run, looks every 20 ms. Each thread that drives has
/// one ``Record``, registered the first time (a lock, once per thread); a drive then only counts
/// itself in and out of it and stores the virtual time of each step, and reads no clock: the
/// watchdog notes when it first saw a drive under way (so a report comes up to one look late).
package enum Watchdog {
    /// What one driving thread shows the watchdog.
    ///
    /// Its atomics are `UnsafeAtomic`s, made with the record and never destroyed, as the record is
    /// not (it lives as long as the process): a `ManagedAtomic`'s store was a call through its
    /// storage-pointer getter at every step of every drive.
    package final class Record: @unchecked Sendable {
        /// Odd while a drive is under way: each drive adds one as it begins and one as it ends.
        let drives = UnsafeAtomic<Int>.create(0)
        /// The virtual time (ns) of the drive's last step.
        package let virtualNow = UnsafeAtomic<Int64>.create(0)
        /// Whether the drive waits for work handed to another thread.
        package let waiting = UnsafeAtomic<Bool>.create(false)
        /// The watchdog's, under its lock: the drive it saw under way, when it first saw it, and
        /// its reports so far.
        var seenDrive = 0
        var seenAt = 0
        var reported = 0
        /// The run's test (under the watchdog's lock; `nil`: unnamed), and whose it is (the
        /// driving thread's).
        var name: String?
        var key = 0

        /// The drive ends.
        package func end() { bump() }

        /// One more drive in or out: only this record's thread writes the count, so a load and
        /// a store do (no read-modify-write).
        @inline(__always) func bump() { drives.store(drives.load(ordering: .relaxed) &+ 1, ordering: .relaxed) }
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
    private nonisolated(unsafe) static var records: [Record] = []
    private static let started: Void = {
        var thread = pthread_t()
        #if canImport(Darwin)
            var created: pthread_t?
            pthread_create(&created, nil, { _ in Watchdog.watch() }, nil)
        #else
            pthread_create(&thread, nil, { _ in Watchdog.watch() }, nil)
            pthread_detach(thread)
        #endif
    }()

    /// A number for each run's name, never reused (an object's identity can be, once it is gone).
    static let names = ManagedAtomic<Int>(0)

    /// A drive of the run `name` (numbered `key`, from ``names``) begins on this thread; end it
    /// with ``Record/end()``.
    static func begin(_ name: @autoclosure () -> String?, key: Int, virtualNow: Int64) -> Record {
        let record = current()
        if record.key != key {
            record.key = key
            let name = name()
            lock.withLock { record.name = name }
        }
        record.virtualNow.store(virtualNow, ordering: .relaxed)
        record.bump()
        return record
    }

    /// This thread's record.
    private static func current() -> Record {
        if let known = marbles_watch_record() { return Unmanaged<Record>.fromOpaque(known).takeUnretainedValue() }
        _ = started
        let record = Record()
        lock.withLock { records.append(record) }
        // Kept for the life of the process (threads of a test process are few and long-lived).
        marbles_watch_record_set(Unmanaged.passRetained(record).toOpaque())
        return record
    }

    private static func watch() -> UnsafeMutableRawPointer? {
        while true {
            var pause = timespec(tv_sec: 0, tv_nsec: 20_000_000)
            nanosleep(&pause, nil)
            let now = realNanoseconds()
            let every = max(tickNanoseconds.load(ordering: .relaxed), 1_000_000) * max(limit.load(ordering: .relaxed), 1)
            let due: [String] = lock.withLock {
                records.compactMap { record in
                    let drive = record.drives.load(ordering: .relaxed)
                    guard drive % 2 == 1 else { return nil }
                    if record.seenDrive != drive { (record.seenDrive, record.seenAt, record.reported) = (drive, now, 0) }
                    guard now - record.seenAt >= every * (record.reported + 1) else { return nil }
                    record.reported += 1
                    return report(record, busy: .nanoseconds(every * record.reported))
                }
            }
            let sink = self.sink
            for line in due { sink(line) }
        }
    }

    /// Real monotonic time, also on a driving thread (where the executable's reads are virtual).
    package static func realNanoseconds() -> Int { Int(marbles_real_ns(CLOCK_MONOTONIC)) }

    /// The real date in ns since 1970, also on a driving thread: for fresh random seeds.
    package static func realDateNanoseconds() -> Int64 { marbles_real_ns(CLOCK_REALTIME) }

    /// The line printed for a drive busy for `real` time (under the lock: reads the name).
    static func report(_ record: Record, busy real: Duration) -> String {
        // The time is the last step's: the work running now is at that instant or the next one due.
        let virtual = Duration.nanoseconds(record.virtualNow.load(ordering: .relaxed))
        let waiting =
            record.waiting.load(ordering: .relaxed)
            ? "waiting for work it handed to another thread (a DispatchQueue block, a Thread, an actor's executor)"
            : "running its jobs and scheduled actions (a loop that never ends, or work that never settles)"
        let run = record.name.map { "the test \"\($0)\"" } ?? "a test scheduler"
        return "marbles: \(run) has been running for \(real) of real time, past virtual time \(virtual): it is \(waiting)"
    }
}
