/// Runs actions now or later, on some thread or in virtual time.
///
/// Times are `Duration`s since the scheduler's own epoch (`now`). An action scheduled for a
/// time already past runs as soon as possible. Actions with equal due times run in the order
/// they were scheduled.
public protocol Scheduler: AnyObject {
    /// The current time since this scheduler's epoch.
    var now: Duration { get }

    /// Schedules `action` to run as soon as possible.
    @discardableResult
    func schedule(_ action: @escaping () -> Void) -> any Disposable

    /// Schedules `action` to run after `delay`.
    @discardableResult
    func schedule(after delay: Duration, _ action: @escaping () -> Void) -> any Disposable

    /// Runs `action` every `period`, the first time after `startingAfter`.
    @discardableResult
    func schedulePeriodic(every period: Duration, startingAfter: Duration, _ action: @escaping () -> Void) -> any Disposable
}

extension Scheduler {
    /// Periodic scheduling by rescheduling after each run; drift-free, since each due time is
    /// computed from the start rather than from when the previous run happened.
    public func schedulePeriodic(every period: Duration, startingAfter: Duration, _ action: @escaping () -> Void) -> any Disposable {
        if let virtual = (self as? any VirtualTimeBacked)?.virtualTimeScheduler, period > .zero {
            let first = virtual.nowNanoseconds &+ max(startingAfter, .zero).clampedNanoseconds
            return VirtualPeriodicTimer(on: virtual, first: first, period: period.clampedNanoseconds, action)
        }
        let slot = SerialDisposable()
        let start = now + startingAfter
        let tick = Locked(0)
        func next() {
            let current = tick.withLock { $0 }
            let scheduled = schedule(after: max(start + period * current - now, .zero)) {
                if slot.isDisposed { return }
                action()
                tick.withLock { $0 += 1 }
                next()
            }
            // The action may already have run (on another thread, or inline) and scheduled the
            // next tick: only the current tick's action may take the slot, or this stale one
            // would cancel its successor and the timer would stop.
            tick.withLock { if $0 == current { slot.set(scheduled) } }
        }
        next()
        return slot
    }
}
