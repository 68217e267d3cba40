/// Lets a call through when at least `interval` has passed since the last one it let through,
/// written the common way: it compares `ContinuousClock.now` with the time it noted, and takes
/// no clock for a test's sake.
public final class CallGate: @unchecked Sendable {
    private let interval: Duration
    private var last: ContinuousClock.Instant?

    /// A gate that lets one call through per `interval`.
    public init(interval: Duration) { self.interval = interval }

    /// Whether this call may go through now; if so, the interval starts again.
    public func allow() -> Bool {
        if let last, last.duration(to: ContinuousClock.now) < interval { return false }
        last = ContinuousClock.now
        return true
    }
}
