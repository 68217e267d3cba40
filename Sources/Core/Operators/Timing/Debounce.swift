extension ObservableType {
    /// Emits a value only after `dueTime` passes without another value; on completion a pending
    /// value is emitted at once, then completion (RxJS `debounceTime`). Errors drop it.
    @inlinable
    public func debounce(_ dueTime: Duration, scheduler: any Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let state = DebounceState(downstream, dueTime: dueTime, scheduler: scheduler)
            resources.insert(state.timer)
            resources.insert(source.subscribe(state.on))
        }
    }
}

/// One subscription of ``ObservableType/debounce(_:scheduler:)``, in one object: a timer's
/// closure captures it and the value's number, not each piece of state.
@usableFromInline
final class DebounceState<Element>: TimedOperatorState<Element> {
    // Touched only under the gate's lock: the value waiting, and its number.
    @usableFromInline var pending: Element?
    @usableFromInline var id = 0

    @inlinable
    func on(_ event: Event<Element>) {
        switch event {
        case .next(let value):
            let current: Int = gate.locked {
                pending = value
                id += 1
                return id
            }
            let action = { [self] in fire(current) }
            gate.scheduleTimer(on: scheduler, after: dueTime, in: timer, isCurrent: { current == id }, action)
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
    }

    @inlinable
    func fire(_ current: Int) {
        gate.locked {
            guard current == id, let value = pending else { return }
            pending = nil
            gate.emit(.next(value))
        }
    }
}
