import MarbleCore

/// What a `Task.sleep` on a system clock becomes on the test scheduler's virtual time.
///
/// `Task.sleep(for:)`, `Task.sleep(until:clock:)`, `Task.sleep(nanoseconds:)` and
/// `ContinuousClock`/`SuspendingClock.sleep` reach the executor as an absolute deadline `D` on
/// the real clock, computed from the real `now` a moment before: the duration the code asked
/// for is lost, but it is bounded. Reading the clock again when the sleep arrives gives
/// `remaining = D - now`, at most the duration. The read happened while the scheduler ran the
/// current virtual instant or one of the few before it (a read can be handed to another task:
/// swift-async-algorithms' `debounce` reads the clock where a value arrives and sleeps in its
/// timer task, possibly at a later instant), whose real start times the scheduler notes; so the
/// duration is at most `remaining` plus the real time since the oldest of those began.
///
/// The duration taken is the roundest number in that interval (the most trailing decimal zeros
/// in nanoseconds, the smaller of two equally round ones): 300 ms, 1.5 s, 250 µs. From it the
/// read's real time follows (`D - duration`), hence the virtual instant it happened at, and the
/// sleep ends `duration` after that instant. The reading is *ambiguous* when the interval also
/// holds a number half as round (a multiple of half the chosen one's last digit's step): the
/// test then fails with the interval, and the sleep takes the roundest value so the run goes on.
/// A deadline that had passed when the sleep arrived (`remaining <= 0`) is due at once, as it is
/// in the app.
struct SleepDeadline {
    /// A virtual instant the scheduler ran, and the real time it began at.
    struct Instant: Equatable {
        var time: Duration
        var real: ContinuousClock.Instant
    }

    /// How long after the virtual time it arrived at the sleep ends.
    let delay: Duration
    /// The duration read from the deadline (the delay's `Duration` for an exact sleep).
    let duration: Duration
    /// When the reading was ambiguous: the interval the duration lies in.
    let ambiguousRange: ClosedRange<Duration>?
    /// The clock the sleep was on (`nil`: a delay or deadline from the runtime's hooks).
    let clock: Any.Type?

    /// The clock, for a failure message.
    var clockName: String { clock.map { "\($0)" } ?? "the system clock" }

    /// A sleep whose duration the runtime passed as such.
    init(exactly duration: Duration, clock: Any.Type?) {
        self.delay = max(duration, .zero)
        self.duration = delay
        self.ambiguousRange = nil
        self.clock = clock
    }

    /// A sleep given as a deadline `remaining` after real time `arrival`, arriving at virtual
    /// time `now`; `instants` are the recent virtual instants, oldest first, the last one `now`'s.
    init(remaining: Duration, instants: [Instant], arrival: ContinuousClock.Instant, now: Duration, clock: Any.Type?) {
        self.clock = clock
        let low = remaining.clampedNanoseconds
        guard low > 0 else {
            (delay, duration, ambiguousRange) = (.zero, .zero, nil)
            return
        }
        let instants = instants.isEmpty ? [Instant(time: now, real: arrival)] : instants
        let span = max(instants[0].real.duration(to: arrival).clampedNanoseconds, 0)
        let high = low.addingReportingOverflow(span)
        let top = high.overflow ? Int64.max : high.partialValue
        let (value, ambiguous) = Self.roundest(from: low, to: top)
        duration = .nanoseconds(value)
        ambiguousRange = ambiguous ? Duration.nanoseconds(low)...Duration.nanoseconds(top) : nil
        // The read was `value - low` before the sleep arrived: at the latest instant begun by then.
        let read = arrival - .nanoseconds(value - low)
        let readAt = instants.last { $0.real <= read } ?? instants[0]
        delay = max(readAt.time + duration - now, .zero)
    }

    /// The roundest integer in `low...high` (both positive), and whether a number half as round
    /// lies in the interval too.
    static func roundest(from low: Int64, to high: Int64) -> (value: Int64, ambiguous: Bool) {
        // No multiple of a step above `high` lies in the interval: start at the largest below it.
        var step: Int64 = 1_000_000_000_000_000_000
        while step > high { step /= 10 }
        var value = low
        while step > 1 {
            let (quotient, remainder) = low.quotientAndRemainder(dividingBy: step)
            let candidate = remainder == 0 ? (low, false) : (quotient + 1).multipliedReportingOverflow(by: step)
            if !candidate.1, candidate.0 <= high {
                value = candidate.0
                break
            }
            step /= 10
        }
        // Step 1 has no half step: any second integer in the interval makes it ambiguous.
        let half = max(step / 2, 1)
        let below = value - half >= low
        let above = value.addingReportingOverflow(half)
        return (value, below || (!above.overflow && above.partialValue <= high))
    }
}
