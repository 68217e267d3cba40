public import Atomics

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
    // First stored property: see InlineAtomic.swift.
    @usableFromInline var stateStorage = Int.AtomicRepresentation(0)
    @usableFromInline let lock = Lock()
    @usableFromInline let downstream: Observer<Element>
    // Touched only under `lock`, never in overlapping accesses.
    // measured (pending, delivering, subjects' lists unchecked): subject chain 127 → 83 ns/event
    // (484b502, A/B, release).
    @exclusivity(unchecked) @usableFromInline var pending: [Event<Element>] = []
    // The batch being delivered, touched only by the drainer (bit 0 of `state` held): swapped
    // with `pending`, so that both buffers keep their capacity and a delivery allocates nothing
    // (copying `pending` and emptying it made `removeAll(keepingCapacity:)` allocate each time).
    @exclusivity(unchecked) @usableFromInline var delivering: [Event<Element>] = []
    /// Bit 0: somebody is delivering (the drainer); the rest: twice the number of events queued
    /// in `pending` that no drainer has taken yet. Changed under `lock`, except by the lock-free
    /// fast path of `send` (0 → 1, then 1 → 0) and by the drainer giving its bit back (1 → 0),
    /// which therefore fails while events wait: a queue is never left without a drainer. While
    /// the drainer holds the lock, nobody else changes it (the fast path's 0 → 1 fails), so the
    /// drainer takes the queue with a plain store.
    // measured (inline atomics): see InlineAtomic.swift.
    @inlinable var state: UnsafeAtomic<Int> { inlineAtomic(self, of: Int.self) }

    /// Whether the state is where ``inlineAtomic(_:of:)`` looks.
    var layoutHolds: Bool { isFirstStoredProperty(of: self, &stateStorage) }

    @usableFromInline init(_ downstream: Observer<Element>) {
        self.downstream = downstream
        assert(isFirstStoredProperty(of: self, &stateStorage))
    }

    /// Runs `body` under the lock, then delivers what it emitted.
    // One atomic read-modify-write a locked section that emits (the count and the drainer bit
    // in one exchange), none for each event queued.
    // (Session 31: against `emit` adding to the state per event and the drainer re-locking
    // after each batch, timing tests 0.97–0.99x, `--only timing-test`, one after the other.)
    @inlinable @discardableResult
    func locked<R>(_ body: () -> R) -> R {
        lock.lock()
        let before = pending.count
        let result = body()
        if pending.isEmpty {
            lock.unlock()
            return result
        }
        queued(pending.count &- before)
        return result
    }

    /// `added` events were just queued, under the lock (which it releases): counts them for the
    /// drainer there is, or becomes the drainer and delivers them with any others waiting.
    @inlinable func queued(_ added: Int) {
        var current = state.load(ordering: .relaxed)
        while current & 1 == 1 {
            if added == 0 { return lock.unlock() }
            let (exchanged, found) = state.compareExchange(
                expected: current, desired: current &+ 2 &* added, ordering: .acquiringAndReleasing)
            if exchanged { return lock.unlock() }
            current = found
        }
        // No drainer: this caller becomes it (the fast path of `send` cannot take the bit while
        // the state is not 0, nor can anyone else while the lock is held).
        while true {
            let (exchanged, found) = state.compareExchange(expected: current, desired: 1, ordering: .acquiringAndReleasing)
            if exchanged { break }
            current = found
            if current & 1 == 1 { return queued(added) }
        }
        deliverPendingAndUnlock()
    }

    /// Delivers the queue until it stays empty, then gives up draining; called with the lock
    /// held and the drainer bit set by the caller.
    @inlinable func deliverPendingAndUnlock() {
        while !pending.isEmpty {
            // The drainer holds the lock: nobody else changes the state now. Taking the queue
            // takes its count.
            state.store(1, ordering: .relaxed)
            swap(&pending, &delivering)
            lock.unlock()
            // An index loop: `for index in delivering.indices` went through `Range`'s generic
            // witnesses here on every event (seen in profiles), even specialized.
            var index = 0
            while index < delivering.count {
                downstream.on(delivering[index])
                index &+= 1
            }
            delivering.removeAll(keepingCapacity: true)
            // Nothing queued meanwhile: give the bit back without the lock. Events are queued
            // under the lock and counted in the state as they are (`queued`), so a failed
            // exchange means some wait; a queuer after the exchange finds no drainer and drains.
            if state.compareExchange(expected: 1, desired: 0, ordering: .acquiringAndReleasing).exchanged { return }
            lock.lock()
        }
        state.store(0, ordering: .releasing)
        lock.unlock()
    }

    /// Queues events without delivering them; a later `locked` or `send` delivers them first.
    func enqueue(_ events: [Event<Element>]) {
        lock.withLock {
            pending.append(contentsOf: events)
            state.add(2 * events.count)
        }
    }

    /// Delivers whatever is queued.
    func drain() { locked {} }

    /// Queues an event; call only inside `locked` (which counts it when the body returns).
    @inlinable func emit(_ event: Event<Element>) {
        pending.append(event)
    }

    /// Delivers one event, serialized with all others. When nothing is queued or being
    /// delivered (the common case) it takes no lock: it claims the drainer bit, delivers, and
    /// gives the bit back unless events were queued meanwhile (then it delivers those too).
    @inlinable func send(_ event: Event<Element>) {
        if state.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged {
            downstream.on(event)
            if state.compareExchange(expected: 1, desired: 0, ordering: .acquiringAndReleasing).exchanged { return }
            lock.lock()
            deliverPendingAndUnlock()
            return
        }
        lock.lock()
        pending.append(event)
        queued(1)
    }
}

extension Gate {
    /// Schedules `action` after `delay` (outside the lock) and keeps it in `slot`, replacing
    /// (and cancelling) the timer there, or cancels it at once when `isCurrent` (checked under
    /// the lock) no longer holds: a newer timer took its place meanwhile. The slot's state is
    /// guarded by this gate's lock, so a timer costs one lock, not two.
    @inlinable
    func scheduleTimer(
        on scheduler: any Scheduler, after delay: Duration, in slot: TimerSlot,
        isCurrent: () -> Bool, _ action: consuming @escaping () -> Void
    ) {
        scheduleTimer(on: scheduler, afterNanoseconds: delay.clampedNanoseconds, in: slot, isCurrent: isCurrent, action)
    }

    /// ``scheduleTimer(on:after:in:isCurrent:_:)`` with the delay in nanoseconds.
    @inlinable
    func scheduleTimer(
        on scheduler: any Scheduler, afterNanoseconds delay: Int64, in slot: TimerSlot,
        isCurrent: () -> Bool, _ action: consuming @escaping () -> Void
    ) {
        if let virtual = slot.virtual {
            // Virtual time: the timer is a number in the scheduler's heap, no disposable. No
            // lock: a virtual scheduler's work is confined to its thread (schedule, advance and
            // dispose from one thread, VirtualTimeScheduler's contract), and so are this slot,
            // whose only other user is a dispose, and the operator's state `isCurrent` reads, as
            // the heap touched here always was.
            // measured: against the lock kept here, the 1,000-event delay test 0.93x (216 → 201
            // µs), debounce 0.92x, timeout 0.95x (A/B, release, min of 7, session 31).
            guard isCurrent(), !slot.disposed else { return }
            let replaced = slot.virtualTimer
            slot.virtualTimer = virtual.enqueue(afterNanoseconds: delay, action)
            if let replaced { virtual.cancel(replaced.sequence, due: replaced.due) }
            return
        }
        var scheduled: (any Disposable)? = scheduler.schedule(after: .nanoseconds(delay), action)
        lock.lock()
        // Swapped, not copied (a copy of an existential disposable goes through its type's
        // value witnesses): `scheduled` ends up holding what to dispose, the timer it replaced
        // or the new one when it is no longer current.
        if isCurrent(), !slot.disposed { swap(&scheduled, &slot.current) }
        lock.unlock()
        scheduled?.dispose()
    }
}

/// One timer at a time for an operator, behind its gate's lock (see
/// ``Gate/scheduleTimer(on:after:in:isCurrent:_:)``): disposing it cancels the timer and keeps
/// later ones from being kept.
@usableFromInline
final class TimerSlot: Disposable, @unchecked Sendable {
    @usableFromInline let lock: Lock
    // Guarded by `lock`, the gate's.
    // measured (the slot's state unchecked, its timer a heap entry): delay test 11% faster,
    // debounce 9% (07a9241, A/B, release).
    @exclusivity(unchecked) @usableFromInline var current: (any Disposable)?
    @exclusivity(unchecked) @usableFromInline var disposed = false
    /// The scheduler's virtual clock, when its time is one (``VirtualTimeBacked``, looked up
    /// once): timers then go into its heap directly, and ``virtualTimer`` holds the current one.
    @usableFromInline let virtual: VirtualTimeScheduler?
    // measured: with `current` above (07a9241).
    @exclusivity(unchecked) @usableFromInline var virtualTimer: (sequence: UInt64, due: Int64)?

    @usableFromInline init<Element>(_ gate: Gate<Element>, on scheduler: any Scheduler) {
        lock = gate.lock
        virtual = (scheduler as? any VirtualTimeBacked)?.virtualTimeScheduler
    }

    @usableFromInline func dispose() {
        lock.lock()
        guard !disposed else { return lock.unlock() }
        disposed = true
        let timer = current.take()
        let virtualTimer = virtualTimer.take()
        lock.unlock()
        timer?.dispose()
        if let virtualTimer { virtual?.cancel(virtualTimer.sequence, due: virtualTimer.due) }
    }
}

/// What a timing operator's subscription holds whatever its state: the gate to its downstream,
/// its one timer, the operator's delay and scheduler. An operator keeps its state in a subclass,
/// one object, so that a timer's closure captures that one reference (`delay`, `debounce`).
@usableFromInline
class TimedOperatorState<Element> {
    @usableFromInline let gate: Gate<Element>
    @usableFromInline let timer: TimerSlot
    @usableFromInline let dueTime: Duration
    /// `dueTime` in nanoseconds (clamped).
    @usableFromInline let dueNanoseconds: Int64
    @usableFromInline let scheduler: any Scheduler

    @inlinable
    init(_ downstream: Observer<Element>, dueTime: Duration, scheduler: any Scheduler) {
        gate = Gate(downstream)
        timer = TimerSlot(gate, on: scheduler)
        self.dueTime = dueTime
        dueNanoseconds = dueTime.clampedNanoseconds
        self.scheduler = scheduler
    }

    /// The scheduler's time in nanoseconds: its virtual clock's, read directly, when it has one.
    @inlinable var nowNanoseconds: Int64 {
        if let virtual = timer.virtual { return virtual.nowNanoseconds }
        return scheduler.now.clampedNanoseconds
    }
}

/// `a + b`, or the nearest end of `Int64`'s range when that overflows.
@inlinable
func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
    let (sum, overflow) = a.addingReportingOverflow(b)
    return overflow ? (b < 0 ? .min : .max) : sum
}

/// `a - b`, or the nearest end of `Int64`'s range when that overflows (a far due time on a
/// clock that started below zero: `Duration`'s 128 bits never trapped there).
@inlinable
func saturatingDifference(_ a: Int64, _ b: Int64) -> Int64 {
    let (difference, overflow) = a.subtractingReportingOverflow(b)
    return overflow ? (b < 0 ? .max : .min) : difference
}
