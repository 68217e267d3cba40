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
            let gate = Gate(downstream)
            let timer = TimerSlot(gate, on: scheduler)
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
            sourceSubscription.set(
                source.subscribe { event in
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
    @inlinable
    public func timeout(_ dueTime: Duration, scheduler: any Scheduler) -> Observable<Element> {
        timeout(dueTime, other: Observable<Element>?.none, scheduler: scheduler)
    }
}
