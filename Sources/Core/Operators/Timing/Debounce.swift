extension ObservableType {
    /// Emits a value only after `dueTime` passes without another value; on completion a pending
    /// value is emitted at once, then completion (RxJS `debounceTime`). Errors drop it.
    @inlinable
    public func debounce(_ dueTime: Duration, scheduler: any Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            let timer = SerialDisposable()
            resources.insert(timer)
            var pending: Element?
            var id = 0
            resources.insert(
                source.subscribe { event in
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
}
