extension ObservableType {
    /// Shifts each value later by `dueTime`. Errors pass at once; completion waits until the
    /// last delayed value has been delivered (RxJS 7 `delay`).
    public func delay(_ dueTime: Duration, scheduler: any Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            var pending = 0
            var sourceDone = false
            resources.insert(source.subscribe { event in
                switch event {
                case .next(let value):
                    gate.locked { pending += 1 }
                    let holder = SingleAssignmentDisposable()
                    guard let key = resources.insert(holder) else { return }
                    holder.set(scheduler.schedule(after: dueTime) {
                        resources.forget(key)
                        gate.locked {
                            pending -= 1
                            gate.emit(.next(value))
                            if sourceDone && pending == 0 { gate.emit(.completed) }
                        }
                    })
                case .error(let error):
                    gate.send(.error(error))
                case .completed:
                    gate.locked {
                        sourceDone = true
                        if pending == 0 { gate.emit(.completed) }
                    }
                }
            })
        }
    }

    /// Subscribes to the source only after `dueTime`.
    public func delaySubscription(_ dueTime: Duration, scheduler: any Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable { downstream in
            let slot = SerialDisposable()
            downstream.setUpstream(slot)
            slot.set(scheduler.schedule(after: dueTime) {
                slot.set(source.subscribe(downstream.on))
            })
        }
    }

    /// Emits a value only after `dueTime` passes without another value; on completion a pending
    /// value is emitted at once, then completion (RxJS `debounceTime`). Errors drop it.
    public func debounce(_ dueTime: Duration, scheduler: any Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            let timer = SerialDisposable()
            resources.insert(timer)
            var pending: Element?
            var id = 0
            resources.insert(source.subscribe { event in
                switch event {
                case .next(let value):
                    let current: Int = gate.locked {
                        pending = value
                        id += 1
                        return id
                    }
                    gate.scheduleTimer(on: scheduler, after: dueTime, in: timer, isCurrent: { current == id }) {
                        gate.locked {
                            guard current == id, let value = pending else { return }
                            pending = nil
                            gate.emit(.next(value))
                        }
                    }
                case .error(let error):
                    gate.locked {
                        pending = nil
                        gate.emit(.error(error))
                    }
                case .completed:
                    gate.locked {
                        if let value = pending { gate.emit(.next(value)) }
                        pending = nil
                        gate.emit(.completed)
                    }
                }
            })
        }
    }

    /// Emits a value, then ignores values for `dueTime`; with `latest`, the last value seen in
    /// that window is emitted when it ends and opens a new window (RxJS `throttleTime` with
    /// `leading: true, trailing: latest`). A value due exactly when the window closes is still
    /// inside it when it was scheduled before the window's timer. Completion waits for a
    /// pending trailing value.
    public func throttle(_ dueTime: Duration, latest: Bool = true, scheduler: any Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            let timer = SerialDisposable()
            resources.insert(timer)
            var throttling = false
            var window = 0
            var pending: Element?
            var sourceDone = false

            // Under the lock: emits the pending value and returns the window to open, if any.
            func send() -> Int? {
                guard let value = pending else { return nil }
                pending = nil
                gate.emit(.next(value))
                if sourceDone { return nil }
                throttling = true
                window += 1
                return window
            }
            // Outside the lock: schedulers may run actions synchronously.
            func open(_ opened: Int?) {
                guard let current = opened else { return }
                gate.scheduleTimer(on: scheduler, after: dueTime, in: timer, isCurrent: { current == window }) {
                    open(gate.locked {
                        guard current == window else { return nil }
                        throttling = false
                        guard latest else { return nil }
                        let next = send()
                        if sourceDone { gate.emit(.completed) }
                        return next
                    })
                }
            }

            resources.insert(source.subscribe { event in
                open(gate.locked {
                    switch event {
                    case .next(let value):
                        pending = value
                        return throttling ? nil : send()
                    case .error(let error):
                        gate.emit(.error(error))
                    case .completed:
                        sourceDone = true
                        if !(latest && pending != nil && throttling) { gate.emit(.completed) }
                    }
                    return nil
                })
            })
        }
    }

    /// Emits the latest value, if a new one arrived, whenever `notifier` emits. Completes with
    /// the source; the notifier's completion changes nothing (RxJS 7 `sample`).
    public func sample<Notifier: ObservableType>(_ notifier: Notifier) -> Observable<Element> {
        let source = asObservable()
        let notifier = notifier.asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            var latest: Element?
            resources.insert(source.subscribe { event in
                gate.locked {
                    switch event {
                    case .next(let value): latest = value
                    case .error, .completed: gate.emit(event)
                    }
                }
            })
            resources.insert(notifier.subscribe { event in
                gate.locked {
                    switch event {
                    case .next:
                        if let value = latest {
                            latest = nil
                            gate.emit(.next(value))
                        }
                    case .error(let error): gate.emit(.error(error))
                    case .completed: break
                    }
                }
            })
        }
    }

    /// Fails with ``RxError/timeout`` (or switches to `fallback`) when `dueTime` passes after
    /// subscription or after a value without a new event.
    public func timeout<Fallback: ObservableType>(
        _ dueTime: Duration, other fallback: Fallback?, scheduler: any Scheduler
    ) -> Observable<Element> where Fallback.Element == Element {
        let source = asObservable()
        let fallback = fallback?.asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            let timer = SerialDisposable()
            let sourceSubscription = SerialDisposable()
            resources.insert(timer)
            resources.insert(sourceSubscription)
            var id = 0
            var timedOut = false
            func arm(_ current: Int) {
                gate.scheduleTimer(on: scheduler, after: dueTime, in: timer, isCurrent: { current == id }) {
                    let fire: Bool = gate.locked {
                        guard current == id, !timedOut else { return false }
                        timedOut = true
                        if fallback == nil { gate.emit(.error(RxError.timeout)) }
                        return true
                    }
                    if fire, let fallback {
                        sourceSubscription.set(fallback.subscribe { gate.send($0) })
                    }
                }
            }
            // The source is subscribed before the first timer starts (RxJS 7): a value due at
            // the very deadline was scheduled first and wins.
            sourceSubscription.set(source.subscribe { event in
                let rearm: Int? = gate.locked {
                    guard !timedOut else { return nil }
                    gate.emit(event)
                    guard case .next = event else { return nil }
                    id += 1
                    return id
                }
                if let rearm { arm(rearm) }
            })
            let first: Int? = gate.locked { id == 0 && !timedOut ? 0 : nil }
            if let first { arm(first) }
        }
    }

    /// Fails with ``RxError/timeout`` when `dueTime` passes after subscription or after a value
    /// without a new event.
    public func timeout(_ dueTime: Duration, scheduler: any Scheduler) -> Observable<Element> {
        timeout(dueTime, other: Observable<Element>?.none, scheduler: scheduler)
    }
}
