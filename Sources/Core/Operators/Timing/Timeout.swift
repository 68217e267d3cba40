extension ObservableType {
    /// Fails with ``RxError/timeout`` (or switches to `fallback`) when `dueTime` passes after
    /// subscription or after a value without a new event.
    @inlinable
    public func timeout<Fallback: ObservableType>(
        _ dueTime: Duration, other fallback: Fallback?, scheduler: any Scheduler
    ) -> Observable<Element> where Fallback.Element == Element {
        let source = asObservable()
        let fallback = fallback?.asObservable()
        return Observable.composite { downstream, resources in
            let state = TimeoutState(downstream, dueTime: dueTime, scheduler: scheduler, fallback: fallback)
            resources.insert(state.timer)
            resources.insert(state.sourceSubscription)
            // The source is subscribed before the first timer starts (RxJS 7): a value due at
            // the very deadline was scheduled first and wins.
            state.sourceSubscription.set(source.subscribe(state.on))
            let first: Int? = state.gate.locked { state.id == 0 && !state.timedOut ? 0 : nil }
            if let first { state.arm(first) }
        }
    }

    /// Fails with ``RxError/timeout`` when `dueTime` passes after subscription or after a value
    /// without a new event.
    @inlinable
    public func timeout(_ dueTime: Duration, scheduler: any Scheduler) -> Observable<Element> {
        timeout(dueTime, other: Observable<Element>?.none, scheduler: scheduler)
    }
}

/// One subscription of ``ObservableType/timeout(_:other:scheduler:)``, in one object, so that a
/// timer's closure captures one reference (it captured five: a context box per value).
@usableFromInline
final class TimeoutState<Element>: TimedOperatorState<Element> {
    @usableFromInline let fallback: Observable<Element>?
    @usableFromInline let sourceSubscription = SerialDisposable()
    // Under the gate's lock: the number of the current timer, and whether one fired.
    @usableFromInline var id = 0
    @usableFromInline var timedOut = false

    @inlinable
    init(_ downstream: Observer<Element>, dueTime: Duration, scheduler: any Scheduler, fallback: Observable<Element>?) {
        self.fallback = fallback
        super.init(downstream, dueTime: dueTime, scheduler: scheduler)
    }

    @inlinable
    func on(_ event: Event<Element>) {
        let rearm: Int? = gate.locked {
            guard !timedOut else { return nil }
            gate.emit(event)
            guard case .next = event else { return nil }
            id += 1
            return id
        }
        if let rearm { arm(rearm) }
    }

    /// Starts timer `current`. In virtual time a replaced timer is cancelled in the scheduler's
    /// heap before it can run, so the closure need not carry the number.
    @inlinable
    func arm(_ current: Int) {
        let action: () -> Void = timer.virtual != nil ? { [self] in fire(nil) } : { [self] in fire(current) }
        gate.scheduleTimer(on: scheduler, after: dueTime, in: timer, isCurrent: { current == id }, action)
    }

    /// Timer `current` ran out (nil: the current one, in virtual time).
    @inlinable
    func fire(_ current: Int?) {
        let fired: Bool = gate.locked {
            guard current ?? id == id, !timedOut else { return false }
            timedOut = true
            if fallback == nil { gate.emit(.error(RxError.timeout)) }
            return true
        }
        if fired, let fallback { sourceSubscription.set(fallback.subscribe { [gate] in gate.send($0) }) }
    }
}
