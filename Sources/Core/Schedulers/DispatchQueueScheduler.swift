public import Dispatch

/// Runs actions on a serial `DispatchQueue`.
///
/// Actions run one at a time, in due-time order, FIFO for equal times.
public final class DispatchQueueScheduler: Scheduler, Sendable {
    /// The queue actions run on.
    public let queue: DispatchQueue
    private let epoch = ContinuousClock.now

    /// Creates a scheduler on a new serial queue.
    public convenience init(label: String = "MarbleCore.DispatchQueueScheduler", qos: DispatchQoS = .default) {
        self.init(queue: DispatchQueue(label: label, qos: qos))
    }

    /// Creates a scheduler on `queue`, which must be serial.
    public init(queue: DispatchQueue) { self.queue = queue }

    public var now: Duration { ContinuousClock.now - epoch }

    @discardableResult
    public func schedule(_ action: @escaping () -> Void) -> any Disposable {
        let token = BooleanDisposable()
        let boxed = UncheckedSendable(action)
        queue.async {
            if !token.isDisposed { boxed.value() }
        }
        return token
    }

    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping () -> Void) -> any Disposable {
        let token = BooleanDisposable()
        let boxed = UncheckedSendable(action)
        queue.asyncAfter(deadline: dispatchDeadline(after: delay)) {
            if !token.isDisposed { boxed.value() }
        }
        return token
    }
}
