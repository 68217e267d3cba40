internal import Atomics
internal import Dispatch

/// Runs actions on the main queue (RxSwift `MainScheduler`, ReactiveCocoa
/// `deliverOnMainThread`): `observe(on: MainScheduler.instance)` delivers to UI code.
///
/// ``instance`` runs an action at once when it is scheduled from the main queue with nothing
/// of its own still waiting there, so that main-queue work is not delayed a turn and order is
/// kept; ``asyncInstance`` always goes through the queue. Delayed actions always do.
public final class MainScheduler: Scheduler, @unchecked Sendable {
    // Actions enqueued and not yet run: an inline run may not overtake them.
    private let waiting = ManagedAtomic<Int>(0)
    /// Runs at once on the main queue when nothing it scheduled is waiting, else enqueues.
    public static let instance = MainScheduler(inline: true)
    /// Always enqueues on the main queue, even when called from it.
    public static let asyncInstance = MainScheduler(inline: false)

    private static let marker = DispatchSpecificKey<Bool>()
    private static let markMain: Void = DispatchQueue.main.setSpecific(key: marker, value: true)

    private let queue = DispatchQueueScheduler(queue: .main)
    private let inline: Bool

    private init(inline: Bool) {
        self.inline = inline
        _ = Self.markMain
    }

    /// Whether the caller is running on the main queue.
    public static var isOnMainQueue: Bool {
        _ = markMain
        return DispatchQueue.getSpecific(key: marker) == true
    }

    public var now: Duration { queue.now }

    @discardableResult
    public func schedule(_ action: @escaping () -> Void) -> any Disposable {
        let before = waiting.loadThenWrappingIncrement(ordering: .acquiringAndReleasing)
        if inline, before == 0, Self.isOnMainQueue {
            action()
            waiting.wrappingDecrement(ordering: .acquiringAndReleasing)
            return Disposables.create()
        }
        let token = BooleanDisposable()
        let boxed = UncheckedSendable(action)
        DispatchQueue.main.async {
            if !token.isDisposed { boxed.value() }
            self.waiting.wrappingDecrement(ordering: .acquiringAndReleasing)
        }
        return token
    }

    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping () -> Void) -> any Disposable {
        delay <= .zero ? schedule(action) : queue.schedule(after: delay, action)
    }
}
