import Foundation

/// A trampoline: an action scheduled while another action of this scheduler is running on the
/// same thread is queued and run after it returns, instead of recursing.
///
/// The outermost `schedule` call on a thread runs the queue to the end (sleeping for delayed
/// actions), so recursive scheduling uses constant stack depth.
public final class CurrentThreadScheduler: Scheduler, Sendable {
    /// The shared instance.
    public static let instance = CurrentThreadScheduler()
    private let epoch = ContinuousClock.now
    private static let key = "MarbleCore.CurrentThreadScheduler.queue"

    /// Creates a scheduler; its epoch is the creation time.
    public init() {}

    public var now: Duration { ContinuousClock.now - epoch }

    /// Whether the calling thread is inside a running trampoline.
    public var isScheduleRequired: Bool { Self.queue == nil }

    private final class Queue {
        var heap = BinaryHeap<Item>()
        var sequence: UInt64 = 0
    }
    private struct Item: Comparable {
        let due: Duration
        let sequence: UInt64
        let action: () -> Void
        let token: BooleanDisposable
        static func < (a: Item, b: Item) -> Bool { (a.due, a.sequence) < (b.due, b.sequence) }
        static func == (a: Item, b: Item) -> Bool { a.sequence == b.sequence }
    }

    private static var queue: Queue? {
        get { Thread.current.threadDictionary[key] as? Queue }
        set { Thread.current.threadDictionary[key] = newValue }
    }

    @discardableResult
    public func schedule(_ action: @escaping () -> Void) -> any Disposable {
        schedule(after: .zero, action)
    }

    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping () -> Void) -> any Disposable {
        let token = BooleanDisposable()
        let item = { (queue: Queue) in
            queue.sequence += 1
            queue.heap.insert(Item(due: self.now + delay, sequence: queue.sequence, action: action, token: token))
        }
        if let queue = Self.queue {
            item(queue)
            return token
        }
        let queue = Queue()
        Self.queue = queue
        defer { Self.queue = nil }
        item(queue)
        while let next = queue.heap.popMin() {
            if next.token.isDisposed { continue }
            sleepFor(next.due - now)
            if next.token.isDisposed { continue }
            next.action()
        }
        return token
    }
}
