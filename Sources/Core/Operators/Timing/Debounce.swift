extension ObservableType {
    /// Emits a value only after `dueTime` passes without another value; on completion a pending
    /// value is emitted at once, then completion (RxJS `debounceTime`). Errors drop it.
    @inlinable
    public func debounce(_ dueTime: Duration, scheduler: any Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            let timer = TimerSlot(gate)
            resources.insert(timer)
            // Touched only under the gate's lock.
            let pending = SerialState<Element?>(nil)
            let id = SerialState(0)
            resources.insert(
                source.subscribe { event in
                    switch event {
                    case .next(let value):
                        let current: Int = gate.locked {
                            pending.value = value
                            id.value += 1
                            return id.value
                        }
                        gate.scheduleTimer(on: scheduler, after: dueTime, in: timer, isCurrent: { current == id.value }) {
                            gate.locked {
                                guard current == id.value, let value = pending.value else { return }
                                pending.value = nil
                                gate.emit(.next(value))
                            }
                        }
                    case .error(let error):
                        gate.locked {
                            pending.value = nil
                            gate.emit(.error(error))
                        }
                    case .completed:
                        gate.locked {
                            if let value = pending.value { gate.emit(.next(value)) }
                            pending.value = nil
                            gate.emit(.completed)
                        }
                    }
                })
        }
    }
}
