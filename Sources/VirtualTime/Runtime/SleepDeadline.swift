import MarbleCore

/// What a `Task.sleep` on a system clock becomes on the test scheduler's virtual time.
///
/// Where the system clocks are virtual inside a run (Linux, see ``VirtualClocks``), a sleep's
/// deadline was computed from virtual `now`, so the time left to it is exact:
/// ``init(exactly:clock:)``. Where they cannot be (Apple platforms, a statically linked
/// runtime), the runtime hands over an absolute deadline `D` on the real clock, computed from
/// the real `now` a moment before, and the duration the code asked for has to be read back:
/// ``init(remaining:instants:jobStart:arrival:now:clock:)``.
///
/// Reading back: `remaining = D - now` at arrival is a lower bound. Most sleeps read the clock
/// in the job that sleeps (`Task.sleep(for:)` reads `now` and hands over `now + duration` at
/// once), so the duration is at most `remaining` plus the real time since that job began: when
/// that narrow interval holds a whole number of milliseconds, the duration is that number, read
/// at this instant (durations people write are whole milliseconds; a job runs microseconds
/// before it sleeps). It is *ambiguous* when the interval holds two (the job ran more than a
/// millisecond of real time before it slept). Otherwise the read may have happened during one of
/// the last few virtual instants (a read handed to another task: swift-async-algorithms'
/// `debounce` reads the clock where a value arrives and sleeps in its timer task), so the
/// duration is at most `remaining` plus the real time since the earlier of the job's start and
/// those instants' start. The duration taken is then the roundest number in that interval (the
/// most trailing decimal zeros in nanoseconds, the smaller of two equally round ones), ambiguous
/// when the interval holds another value a programmer would write: a multiple of a tenth of the
/// chosen value's step (for 100 ms, any multiple of 10 ms, such as 70 ms). An ambiguous test
/// fails naming both, and the sleep takes the roundest so the run goes on: a wrong duration is
/// never recorded quietly. A deadline that had passed when the sleep arrived (`remaining <= 0`)
/// is due at once, as it is in the app.
package struct SleepDeadline {
    /// A virtual instant the scheduler ran, and the real time it began at.
    package struct Instant: Equatable {
        package var time: Duration
        package var real: ContinuousClock.Instant
    }

    /// A reading that holds more than one plausible duration.
    package struct Ambiguity: Equatable {
        /// The interval the duration lies in.
        package var range: ClosedRange<Duration>
        /// Another value a programmer would write in that interval.
        package var other: Duration
    }

    /// How long after the virtual time it arrived at the sleep ends.
    package let delay: Duration
    /// The duration read from the deadline (the delay's `Duration` for an exact sleep).
    package let duration: Duration
    /// When the reading was ambiguous: the interval and the other candidate.
    package let ambiguity: Ambiguity?
    /// The clock the sleep was on (`nil`: a delay or deadline from the runtime's hooks).
    let clock: Any.Type?

    /// The clock, for a failure message.
    package var clockName: String { clock.map { "\($0)" } ?? "the system clock" }

    /// A sleep whose duration is known: passed as such, or read against virtual clocks.
    package init(exactly duration: Duration, clock: Any.Type?) {
        self.delay = max(duration, .zero)
        self.duration = delay
        self.ambiguity = nil
        self.clock = clock
    }

    /// A sleep given as a deadline `remaining` after real time `arrival`, arriving at virtual
    /// time `now` from a job that began at real time `jobStart`; `instants` are the recent
    /// virtual instants, oldest first, the last one `now`'s.
    package init(
        remaining: Duration, instants: [Instant], jobStart: ContinuousClock.Instant?, arrival: ContinuousClock.Instant,
        now: Duration, clock: Any.Type?
    ) {
        self.clock = clock
        let low = remaining.clampedNanoseconds
        guard low > 0 else {
            (delay, duration, ambiguity) = (.zero, .zero, nil)
            return
        }
        // Read in the sleep's own job (`Task.sleep(for:)` reads `now` and sleeps at once): a
        // whole number of milliseconds there is what the code wrote, read at this instant.
        if let jobStart {
            let own = low.addingReportingOverflow(max(jobStart.duration(to: arrival).clampedNanoseconds, 0))
            if !own.overflow, let whole = Self.wholeMilliseconds(from: low, to: own.partialValue) {
                duration = .nanoseconds(whole.value)
                delay = duration
                ambiguity = whole.other.map {
                    Ambiguity(range: .nanoseconds(low) ... .nanoseconds(own.partialValue), other: .nanoseconds($0))
                }
                return
            }
        }
        let instants = instants.isEmpty ? [Instant(time: now, real: arrival)] : instants
        let earliest = min(jobStart ?? instants[0].real, instants[0].real)
        let span = max(earliest.duration(to: arrival).clampedNanoseconds, 0)
        let high = low.addingReportingOverflow(span)
        let top = high.overflow ? Int64.max : high.partialValue
        let (value, other) = Self.reading(from: low, to: top)
        duration = .nanoseconds(value)
        ambiguity = other.map { Ambiguity(range: .nanoseconds(low) ... .nanoseconds(top), other: .nanoseconds($0)) }
        // The read was `value - low` before the sleep arrived: at the latest instant begun by then.
        let read = arrival - .nanoseconds(value - low)
        let readAt = instants.last { $0.real <= read } ?? instants[0]
        delay = max(readAt.time + duration - now, .zero)
    }

    /// The roundest whole number of milliseconds in `low...high` (ns, both positive), and another
    /// one there, if any; `nil` when there is none.
    package static func wholeMilliseconds(from low: Int64, to high: Int64) -> (value: Int64, other: Int64?)? {
        let millisecond: Int64 = 1_000_000
        let first = (low + millisecond - 1) / millisecond
        let last = high / millisecond
        guard first <= last else { return nil }
        let (value, _) = reading(from: first, to: last)
        let other = value != first ? first : value < last ? value + 1 : nil
        return (value * millisecond, other.map { $0 * millisecond })
    }

    /// The roundest integer in `low...high` (both positive), and another value a programmer
    /// would write in the interval (a multiple of a tenth of the roundest one's step), if any:
    /// the smallest, since a deadline is usually read just before the sleep.
    package static func reading(from low: Int64, to high: Int64) -> (value: Int64, other: Int64?) {
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
        let fine = max(step / 10, 1)
        let (quotient, remainder) = low.quotientAndRemainder(dividingBy: fine)
        // `value` is a multiple of `fine` in the interval, so this stays at or below it.
        let first = remainder == 0 ? low : (quotient + 1) * fine
        if first != value { return (value, first) }
        let second = first.addingReportingOverflow(fine)
        return (value, !second.overflow && second.partialValue <= high ? second.partialValue : nil)
    }
}
