#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs every action on the calling thread, inside `schedule`.
///
/// A delayed action blocks the caller until it is due; use it for delays only in scripts.
public final class ImmediateScheduler: Scheduler, Sendable {
    /// The shared instance.
    public static let instance = ImmediateScheduler()
    private let epoch = ContinuousClock.now

    /// Creates a scheduler; its epoch is the creation time.
    public init() {}

    public var now: Duration { ContinuousClock.now - epoch }

    @discardableResult
    public func schedule(_ action: @escaping () -> Void) -> any Disposable {
        action()
        return Disposables.create()
    }

    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping () -> Void) -> any Disposable {
        sleepFor(delay)
        action()
        return Disposables.create()
    }
}

func sleepFor(_ duration: Duration) {
    guard duration > .zero else { return }
    let nanos = duration.clampedNanoseconds
    var request = timespec(tv_sec: Int(nanos / 1_000_000_000), tv_nsec: Int(nanos % 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 { request = remaining }
}
