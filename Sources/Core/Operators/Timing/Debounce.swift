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
    /// What the gate's lock guards: the value waiting, and its number.
    @usableFromInline
    struct Book {
        @usableFromInline var pending: Element?
        @usableFromInline var id = 0
        @inlinable init() {}
    }
    // Touched only under the gate's lock, each time through `update`, never in overlapping
    // accesses.
    // measured: checked (one access per locked section, the fields in one struct), the 1,000-event
    // delay test took 1.13x and debounce 1.12x the time unchecked (issue 61, bench-ab.py, release,
    // min of 7); unchecked, 1.04x and 0.99x of 40fe785.
    @exclusivity(unchecked) @usableFromInline var book = Book()

    @inlinable
    func update<R>(_ body: (inout Book) -> R) -> R { body(&book) }

    @inlinable
    func on(_ event: Event<Element>) {
        switch event {
        case .next(let value):
            let current: Int = gate.locked {
                update { book in
                    book.pending = value
                    book.id &+= 1
                    return book.id
                }
            }
            // In virtual time a replaced timer is cancelled in the scheduler's heap before it can
            // run, so the one that runs is the current one: its closure captures `self` alone,
            // which allocates nothing (with the value's number too, a context box per value).
            let action: () -> Void = timer.virtual != nil ? { [self] in fire(nil) } : { [self] in fire(current) }
            gate.scheduleTimer(on: scheduler, after: dueTime, in: timer, isCurrent: { current == book.id }, action)
        case .error(let error):
            gate.locked {
                update { $0.pending = nil }
                gate.emit(.error(error))
            }
        case .completed:
            gate.locked {
                if let value = update({ $0.pending.take() }) { gate.emit(.next(value)) }
                gate.emit(.completed)
            }
        }
    }

    /// The timer for value `current` (nil: the current timer, in virtual time).
    @inlinable
    func fire(_ current: Int?) {
        gate.locked {
            guard let value = update({ book in current ?? book.id == book.id ? book.pending.take() : nil }) else { return }
            gate.emit(.next(value))
        }
    }
}
