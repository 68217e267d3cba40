extension ObservableType {
    /// Emits a value, then ignores values for `dueTime`; with `latest`, the last value seen in
    /// that window is emitted when it ends and opens a new window (RxJS `throttleTime` with
    /// `leading: true, trailing: latest`). A value due exactly when the window closes is still
    /// inside it when it was scheduled before the window's timer. Completion waits for a
    /// pending trailing value.
    @inlinable
    public func throttle(_ dueTime: Duration, latest: Bool = true, scheduler: any Scheduler) -> Observable<Element> {
        throttle(dueTime, leading: true, trailing: latest, scheduler: scheduler)
    }

    /// Throttles with RxJS `throttleTime`'s configuration: a value outside a window opens one
    /// of `dueTime`, and is emitted at once when `leading`; when the window ends, the last value
    /// seen in it is emitted if `trailing`, which opens the next window. With neither, nothing
    /// is emitted. Completion waits for a pending trailing value; an error passes at once.
    ///
    /// ```
    /// source:                    -a-b-c----d----|
    /// leading: false, trailing:  ----c---------d|    (dueTime 3)
    /// ```
    @inlinable
    public func throttle(_ dueTime: Duration, leading: Bool, trailing: Bool, scheduler: any Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let state = ThrottleState(downstream, dueTime: dueTime, scheduler: scheduler, leading: leading, trailing: trailing)
            resources.insert(state.timer)
            resources.insert(source.subscribe(state.on))
        }
    }
}

/// One subscription of ``ObservableType/throttle(_:leading:trailing:scheduler:)``, in one
/// object, so that a timer's closure captures one reference (it captured six: a context box
/// per window).
@usableFromInline
final class ThrottleState<Element>: TimedOperatorState<Element> {
    @usableFromInline let leading: Bool
    @usableFromInline let trailing: Bool
    // Under the gate's lock.
    @usableFromInline var throttling = false
    @usableFromInline var window = 0
    @usableFromInline var pending: Element?
    @usableFromInline var sourceDone = false

    @inlinable
    init(_ downstream: Observer<Element>, dueTime: Duration, scheduler: any Scheduler, leading: Bool, trailing: Bool) {
        self.leading = leading
        self.trailing = trailing
        super.init(downstream, dueTime: dueTime, scheduler: scheduler)
    }

    @inlinable
    func on(_ event: Event<Element>) {
        open(
            gate.locked {
                switch event {
                case .next(let value):
                    pending = value
                    if throttling { return nil }
                    return leading ? send() : startWindow()
                case .error(let error):
                    gate.emit(.error(error))
                case .completed:
                    sourceDone = true
                    if !(trailing && pending != nil && throttling) { gate.emit(.completed) }
                }
                return nil
            })
    }

    /// Under the lock: returns the window to open.
    @inlinable
    func startWindow() -> Int {
        throttling = true
        window += 1
        return window
    }

    /// Under the lock: emits the pending value and returns the window to open, if any.
    @inlinable
    func send() -> Int? {
        guard let value = pending else { return nil }
        pending = nil
        gate.emit(.next(value))
        return sourceDone ? nil : startWindow()
    }

    /// Outside the lock (schedulers may run actions synchronously): starts window `opened`'s
    /// timer. In virtual time a replaced timer is cancelled in the scheduler's heap before it
    /// can run, so the closure need not carry the window's number.
    @inlinable
    func open(_ opened: Int?) {
        guard let current = opened else { return }
        let action: () -> Void = timer.virtual != nil ? { [self] in close(nil) } : { [self] in close(current) }
        gate.scheduleTimer(on: scheduler, after: dueTime, in: timer, isCurrent: { current == window }, action)
    }

    /// Window `current` ends (nil: the current one, in virtual time).
    @inlinable
    func close(_ current: Int?) {
        open(
            gate.locked {
                guard current ?? window == window else { return nil }
                throttling = false
                guard trailing else { return nil }
                let next = send()
                if sourceDone { gate.emit(.completed) }
                return next
            })
    }
}
