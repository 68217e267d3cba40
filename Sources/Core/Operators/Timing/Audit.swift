extension ObservableType {
    /// At a value, waits `duration`, then emits the latest value seen meanwhile (RxJS 7
    /// `auditTime`): the trailing edge only, unlike ``throttle(_:latest:scheduler:)``. A
    /// completion during the wait waits for it, emits the value, then completes; an error
    /// passes at once.
    @inlinable
    public func audit(_ duration: Duration, scheduler: any Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            let timer = TimerSlot(gate, on: scheduler)
            resources.insert(timer)
            // A wait is running exactly while a value is held.
            var latest: Element?
            var window = 0
            var sourceDone = false
            resources.insert(
                source.subscribe { event in
                    let opened: Int? = gate.locked {
                        switch event {
                        case .next(let value):
                            let waiting = latest != nil
                            latest = value
                            guard !waiting else { return nil }
                            window += 1
                            return window
                        case .error(let error):
                            gate.emit(.error(error))
                        case .completed:
                            sourceDone = true
                            if latest == nil { gate.emit(.completed) }
                        }
                        return nil
                    }
                    guard let current = opened else { return }
                    gate.scheduleTimer(on: scheduler, after: duration, in: timer, isCurrent: { current == window }) {
                        gate.locked {
                            if let value = latest { gate.emit(.next(value)) }
                            latest = nil
                            if sourceDone { gate.emit(.completed) }
                        }
                    }
                })
        }
    }
}
