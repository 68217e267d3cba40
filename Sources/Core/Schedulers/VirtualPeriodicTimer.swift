/// A periodic schedule on a virtual clock (`interval`, `timer(_:period:)`, `sample`'s ticks):
/// each tick enters the scheduler's heap directly, its closure capturing this object alone, so
/// a tick allocates nothing (the generic rescheduling made a closure context and a disposable
/// per tick). Due times are counted from the start, as the generic path does: no drift.
final class VirtualPeriodicTimer: Disposable, @unchecked Sendable {
    private let canceller: VirtualActionCanceller
    private let period: Int64
    private let action: () -> Void
    private let lock = Lock()
    // Under `lock`: the next tick's due time, the tick waiting in the heap, whether disposed.
    private var next: Int64
    private var waiting: (sequence: UInt64, due: Int64)?
    private var disposed = false

    /// Starts ticking `first` (virtual ns), then every `period` ns (positive).
    init(on scheduler: VirtualTimeScheduler, first: Int64, period: Int64, _ action: @escaping () -> Void) {
        canceller = scheduler.canceller
        self.period = period
        self.action = action
        next = first
        arm(on: scheduler)
    }

    private func arm(on scheduler: VirtualTimeScheduler) {
        let due = lock.withLock { next }
        let entry = scheduler.enqueue(afterNanoseconds: due &- scheduler.nowNanoseconds) { [self] in tick() }
        let stale: Bool = lock.withLock {
            if disposed { return true }
            waiting = entry
            return false
        }
        if stale { scheduler.cancel(entry.sequence, due: entry.due) }
    }

    private func tick() {
        let live: Bool = lock.withLock {
            waiting = nil
            next &+= period
            return !disposed
        }
        guard live else { return }
        action()
        if let scheduler = canceller.scheduler, lock.withLock({ !disposed }) { arm(on: scheduler) }
    }

    func dispose() {
        let entry: (sequence: UInt64, due: Int64)? = lock.withLock {
            disposed = true
            return waiting.take()
        }
        if let entry { canceller.scheduler?.cancel(entry.sequence, due: entry.due) }
    }
}
