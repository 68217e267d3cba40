/// An actor that lets callers through one per `interval`, in the order they asked, sleeping
/// them with `Task.sleep(nanoseconds:)`; a caller arriving after a quiet spell goes at once.
public actor RateLimiter {
    private let interval: UInt64
    /// Ends `interval` after the latest caller went through.
    private var slot: Task<Void, Never>?

    /// At most one caller per `interval` nanoseconds.
    public init(intervalNanoseconds interval: UInt64) { self.interval = interval }

    /// Returns when this caller's turn comes.
    public func acquire() async {
        let previous = slot
        let interval = interval
        slot = Task {
            await previous?.value
            try? await Task.sleep(nanoseconds: interval)
        }
        await previous?.value
    }
}
