/// Serializes delivery to one downstream observer from several sources, possibly on several
/// threads, without holding a lock while calling out.
///
/// Operators keep their state in variables that they touch only inside `locked { }`. Events
/// queued there with `emit` are delivered after the lock is released, in queue order, by
/// whichever caller started draining; a re-entrant call (downstream causing another upstream
/// event on the same thread) queues its events and returns, so nothing recurses or deadlocks.
// `send` is inlinable (and what it touches usable from inline code) so that a client's hot
// path, a subject driven in a loop, is specialized instead of looking up generic metadata on
// every event.
@usableFromInline
final class Gate<Element>: @unchecked Sendable {
    @usableFromInline let lock = Lock()
    @usableFromInline let downstream: Observer<Element>
    // Touched only under `lock`, never in overlapping accesses: no runtime exclusivity checks.
    @exclusivity(unchecked) @usableFromInline var pending: [Event<Element>] = []
    @exclusivity(unchecked) @usableFromInline var draining = false

    @usableFromInline init(_ downstream: Observer<Element>) { self.downstream = downstream }

    /// Runs `body` under the lock, then delivers what it emitted.
    @discardableResult
    func locked<R>(_ body: () -> R) -> R {
        lock.lock()
        let result = body()
        if draining || pending.isEmpty {
            lock.unlock()
            return result
        }
        draining = true
        deliverPendingAndUnlock()
        return result
    }

    /// Delivers the queue until it stays empty; called with the lock held and `draining` set.
    @inlinable func deliverPendingAndUnlock() {
        while !pending.isEmpty {
            let batch = pending
            pending.removeAll(keepingCapacity: true)
            lock.unlock()
            for event in batch { downstream.on(event) }
            lock.lock()
        }
        draining = false
        lock.unlock()
    }

    /// Queues events without delivering them; a later `locked` or `send` delivers them first.
    func enqueue(_ events: [Event<Element>]) {
        lock.withLock { pending.append(contentsOf: events) }
    }

    /// Delivers whatever is queued.
    func drain() { locked {} }

    /// Queues an event; call only inside `locked`.
    func emit(_ event: Event<Element>) { pending.append(event) }

    /// Delivers one event, serialized with all others. When nothing is queued or being
    /// delivered (the common case) it goes straight downstream, without a queue round trip.
    @inlinable func send(_ event: Event<Element>) {
        lock.lock()
        if draining {
            pending.append(event)
            lock.unlock()
            return
        }
        draining = true
        if pending.isEmpty {
            lock.unlock()
            downstream.on(event)
            lock.lock()
        } else {
            pending.append(event)
        }
        deliverPendingAndUnlock()
    }

    /// Schedules a timer outside the lock and keeps it in `slot` unless a newer timer took its
    /// place meanwhile (`isCurrent` is checked under the lock).
    func scheduleTimer(
        on scheduler: any Scheduler, after delay: Duration, in slot: SerialDisposable,
        isCurrent: @escaping () -> Bool, _ action: @escaping () -> Void
    ) {
        let scheduled = scheduler.schedule(after: delay, action)
        lock.lock()
        if isCurrent() {
            slot.set(scheduled)
            lock.unlock()
        } else {
            lock.unlock()
            scheduled.dispose()
        }
    }
}
