/// An actor that lets at most one call through per interval, sleeping callers with
/// `Task.sleep(nanoseconds:)` until their slot comes.
public actor RateLimiter {
    private let interval: UInt64
    private var nextSlot: UInt64 = 0
    private var clock: UInt64 = 0
    private let now: @Sendable () -> UInt64

    /// `interval` in nanoseconds; `now` reads the time in nanoseconds (`ContinuousClock` in the app).
    public init(interval: UInt64, now: @escaping @Sendable () -> UInt64 = RateLimiter.uptimeNanoseconds) {
        self.interval = interval
        self.now = now
    }

    /// Waits until this caller may go, then returns.
    public func acquire() async throws {
        let slot = nextSlot
        nextSlot += interval
        var waited: UInt64 = 0
        if slot > clock {
            waited = slot - clock
            try await Task.sleep(nanoseconds: waited)
        }
        clock += waited
    }

    public static let uptimeNanoseconds: @Sendable () -> UInt64 = {
        let elapsed = ContinuousClock.now - start
        return UInt64(elapsed.components.seconds) * 1_000_000_000 + UInt64(elapsed.components.attoseconds / 1_000_000_000)
    }
    private static let start = ContinuousClock.now
}
