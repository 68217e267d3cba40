extension ObservableType {
    /// Shifts each value later by `dueTime`. Errors pass at once; completion waits until the
    /// last delayed value has been delivered (RxJS 7 `delay`).
    @inlinable
    public func delay(_ dueTime: Duration, scheduler: any Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            // One timer at a time over a queue in arrival order: values leave in the order they
            // came, even on a scheduler whose timers may fire out of order (dispatch's leeway).
            // A timer is pending exactly while the queue is not empty.
            let gate = Gate(downstream)
            // Touched only under the gate's lock.
            let queue = SerialState(FIFOQueue<(due: Duration, value: Element)>())
            let generation = SerialState(0)
            let sourceDone = SerialState(false)
            let timer = TimerSlot(gate)
            resources.insert(timer)

            func start(after delay: Duration, generation current: Int) {
                gate.scheduleTimer(on: scheduler, after: delay, in: timer, isCurrent: { generation.value == current }) {
                    fire()
                }
            }
            func fire() {
                let next: (Duration, Int)? = gate.locked {
                    let now = scheduler.now
                    while let next = queue.value.first, next.due <= now {
                        gate.emit(.next(next.value))
                        _ = queue.value.popFirst()
                    }
                    guard let next = queue.value.first else {
                        if sourceDone.value { gate.emit(.completed) }
                        return nil
                    }
                    generation.value += 1
                    return (next.due - now, generation.value)
                }
                if let (delay, current) = next { start(after: delay, generation: current) }
            }

            resources.insert(
                source.subscribe { event in
                    switch event {
                    case .next(let value):
                        let current: Int? = gate.locked {
                            let wasEmpty = queue.value.isEmpty
                            queue.value.append((scheduler.now + dueTime, value))
                            guard wasEmpty else { return nil }
                            generation.value += 1
                            return generation.value
                        }
                        if let current { start(after: dueTime, generation: current) }
                    case .error(let error):
                        gate.send(.error(error))
                    case .completed:
                        gate.locked {
                            sourceDone.value = true
                            if queue.value.isEmpty { gate.emit(.completed) }
                        }
                    }
                })
        }
    }

    /// Subscribes to the source only after `dueTime`.
    @inlinable
    public func delaySubscription(_ dueTime: Duration, scheduler: any Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            // Separate slots: the timer may fire before `schedule` returns, and storing its
            // token must not dispose the subscription the timer already made.
            let subscription = SingleAssignmentDisposable()
            resources.insert(subscription)
            resources.insert(scheduler.schedule(after: dueTime) { subscription.set(source.subscribe(downstream.on)) })
        }
    }
}
