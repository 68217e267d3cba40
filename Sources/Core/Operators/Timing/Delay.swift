extension ObservableType {
    /// Shifts each value later by `dueTime`. Errors pass at once; completion waits until the
    /// last delayed value has been delivered (RxJS 7 `delay`).
    public func delay(_ dueTime: Duration, scheduler: any Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            var pending = 0
            var sourceDone = false
            resources.insert(
                source.subscribe { event in
                    switch event {
                    case .next(let value):
                        gate.locked { pending += 1 }
                        let holder = SingleAssignmentDisposable()
                        guard let key = resources.insert(holder) else { return }
                        holder.set(
                            scheduler.schedule(after: dueTime) {
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
            slot.set(
                scheduler.schedule(after: dueTime) {
                    slot.set(source.subscribe(downstream.on))
                })
        }
    }
}
