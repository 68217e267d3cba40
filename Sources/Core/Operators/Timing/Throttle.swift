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
            let gate = Gate(downstream)
            let timer = TimerSlot(gate, on: scheduler)
            resources.insert(timer)
            var throttling = false
            var window = 0
            var pending: Element?
            var sourceDone = false

            // Under the lock: returns the window to open.
            func startWindow() -> Int {
                throttling = true
                window += 1
                return window
            }
            // Under the lock: emits the pending value and returns the window to open, if any.
            func send() -> Int? {
                guard let value = pending else { return nil }
                pending = nil
                gate.emit(.next(value))
                return sourceDone ? nil : startWindow()
            }
            // Outside the lock: schedulers may run actions synchronously.
            func open(_ opened: Int?) {
                guard let current = opened else { return }
                gate.scheduleTimer(on: scheduler, after: dueTime, in: timer, isCurrent: { current == window }) {
                    open(
                        gate.locked {
                            guard current == window else { return nil }
                            throttling = false
                            guard trailing else { return nil }
                            let next = send()
                            if sourceDone { gate.emit(.completed) }
                            return next
                        })
                }
            }

            resources.insert(
                source.subscribe { event in
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
                })
        }
    }
}
