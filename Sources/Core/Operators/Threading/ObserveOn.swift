extension ObservableType {
    /// Delivers events on `scheduler`, in order. Events are queued and drained by one
    /// scheduled action at a time, so a serial scheduler preserves the grammar.
    @inlinable
    public func observe(on scheduler: any Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let lock = Lock()
            var queue: [Event<Element>] = []
            var scheduled = false
            let drainSlot = SerialDisposable()
            resources.insert(drainSlot)
            func drain() {
                while true {
                    let batch: [Event<Element>] = lock.withLock {
                        if queue.isEmpty { scheduled = false }
                        defer { queue.removeAll(keepingCapacity: true) }
                        return queue
                    }
                    if batch.isEmpty { return }
                    for event in batch { downstream.on(event) }
                }
            }
            resources.insert(
                source.subscribe { event in
                    let start: Bool = lock.withLock {
                        queue.append(event)
                        if scheduled { return false }
                        scheduled = true
                        return true
                    }
                    if start { drainSlot.set(scheduler.schedule(drain)) }
                })
        }
    }
}
