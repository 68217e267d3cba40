import Dispatch

extension Duration {
    /// The duration in whole nanoseconds, clamped to `Int64`'s range (never traps: a
    /// `Duration` holds 128 bits, far more than any clock here uses).
    @inlinable
    package var clampedNanoseconds: Int64 {
        // Durations under about 9 s fit in 64-bit attoseconds: one 64-bit division (a multiply)
        // instead of `components`' 128-bit ones. Both truncate toward zero. (`attoseconds` is
        // macOS 15 / iOS 18; before, `components` does it all.)
        if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) {
            if let small = Int64(exactly: attoseconds) { return small / 1_000_000_000 }
        }
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? .min : .max }
        return sum
    }
}

/// The dispatch deadline `delay` from now; delays beyond a century (or ones that would
/// overflow `DispatchTime`) mean "never", negative ones "now".
func dispatchDeadline(after delay: Duration) -> DispatchTime {
    let nanos = max(delay, .zero).clampedNanoseconds
    guard nanos < 3_153_600_000_000_000_000 else { return .distantFuture }
    let now = DispatchTime.now()
    let (sum, overflow) = now.uptimeNanoseconds.addingReportingOverflow(UInt64(nanos))
    return overflow ? .distantFuture : DispatchTime(uptimeNanoseconds: sum)
}
