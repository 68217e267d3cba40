import MarbleCore

/// What the runtime tells the test scheduler about a `Task.sleep` on a system clock, and the
/// virtual duration read from it.
///
/// `Task.sleep(for:)`, `Task.sleep(until:clock:)`, `Task.sleep(nanoseconds:)` and
/// `ContinuousClock`/`SuspendingClock.sleep` reach the executor as an absolute deadline on the
/// real clock, computed from the real `now` a moment before: the duration the code asked for
/// is lost. It is bounded, though. Reading the clock again when the sleep arrives gives
/// `remaining`, at most the duration; the job that computed the deadline started `slack`
/// earlier, so the duration is at most `remaining + slack`. The duration taken is the roundest
/// number in that interval (the most trailing decimal zeros in nanoseconds, the smaller of two
/// equally round ones): 300 ms, 1.5 s, 250 µs. The reading is *ambiguous* when the interval
/// also holds a number half as round (a multiple of half the chosen one's last digit's step):
/// then the test fails with the interval, and the sleep takes the roundest value so the run
/// goes on. A deadline that had passed when the sleep arrived (`remaining <= 0`) is due at once,
/// as it is in the app.
struct SleepDeadline: Equatable {
    /// The virtual duration the sleep takes.
    let duration: Duration
    /// When the reading was ambiguous: the interval the duration lies in.
    let ambiguousRange: ClosedRange<Duration>?
    /// The clock the sleep was on, for a failure message.
    let clockName: String

    /// A sleep whose duration the runtime passed as such.
    init(exactly duration: Duration, clockName: String) {
        self.duration = max(duration, .zero)
        self.ambiguousRange = nil
        self.clockName = clockName
    }

    /// A sleep given as a deadline `remaining` after the real now, computed by a job that had
    /// been running for `slack`.
    init(remaining: Duration, slack: Duration, clockName: String) {
        self.clockName = clockName
        let low = remaining.clampedNanoseconds
        guard low > 0 else {
            duration = .zero
            ambiguousRange = nil
            return
        }
        let high = low.addingReportingOverflow(max(slack.clampedNanoseconds, 0))
        let (value, ambiguous) = Self.roundest(from: low, to: high.overflow ? .max : high.partialValue)
        duration = .nanoseconds(value)
        ambiguousRange = ambiguous ? Duration.nanoseconds(low)...Duration.nanoseconds(high.overflow ? .max : high.partialValue) : nil
    }

    /// The roundest integer in `low...high` (both positive), and whether a number half as round
    /// lies in the interval too.
    static func roundest(from low: Int64, to high: Int64) -> (value: Int64, ambiguous: Bool) {
        var step: Int64 = 1_000_000_000_000_000_000
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
