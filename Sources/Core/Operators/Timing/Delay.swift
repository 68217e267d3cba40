extension ObservableType {
    /// Shifts each value later by `dueTime`. Errors pass at once; completion waits until the
    /// last delayed value has been delivered (RxJS 7 `delay`).
    @inlinable
    public func delay(_ dueTime: Duration, scheduler: any Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let state = DelayState(downstream, dueTime: dueTime, scheduler: scheduler)
            resources.insert(state.timer)
            resources.insert(source.subscribe(state.on))
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

/// One subscription of ``ObservableType/delay(_:scheduler:)``: one timer at a time over a queue
/// in arrival order, so values leave in the order they came even on a scheduler whose timers
/// may fire out of order (dispatch's leeway). A timer is pending exactly while the queue is not
/// empty. Its state lives in one object, so a timer's closure captures one reference: it
/// captured seven, each retained when a timer was made and released when it ran (measured: a
/// 1,000-event `delay` test 11% faster). A closure made once and kept measured slower still.
@usableFromInline
final class DelayState<Element>: TimedOperatorState<Element> {
    /// What the gate's lock guards: the values waiting with their due times, the number of the
    /// current timer, whether the source ended.
    @usableFromInline
    struct Book {
        // Due times in nanoseconds: `Duration`'s comparisons and arithmetic are calls into the
        // standard library, and a call made while the queue's first element is borrowed
        // retained and released the queue's storage around it.
        // (Measured together with the recording's clock read, session 31: the 1,000-event delay
        // test 283 → 225 µs, `--only timing-test`, release, builds run one after the other.)
        @usableFromInline var queue = FIFOQueue<(due: Int64, value: Element)>()
        @usableFromInline var generation = 0
        @usableFromInline var sourceDone = false
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
            let current: Int? = gate.locked {
                let due = saturatingSum(nowNanoseconds, dueNanoseconds)
                return update { book in
                    let wasEmpty = book.queue.isEmpty
                    book.queue.append((due, value))
                    guard wasEmpty else { return nil }
                    book.generation &+= 1
                    return book.generation
                }
            }
            if let current { start(afterNanoseconds: dueNanoseconds, generation: current) }
        case .error(let error):
            gate.send(.error(error))
        case .completed:
            gate.locked {
                if update({ book in
                    book.sourceDone = true
                    return book.queue.isEmpty
                }) {
                    gate.emit(.completed)
                }
            }
        }
    }

    @inlinable
    func start(afterNanoseconds delay: Int64, generation current: Int) {
        let action = { [self] in fire() }
        gate.scheduleTimer(on: scheduler, afterNanoseconds: delay, in: timer, isCurrent: { book.generation == current }, action)
    }

    @inlinable
    func fire() {
        let next: (Int64, Int)? = gate.locked {
            let now = nowNanoseconds
            return update { book in
                while let next = book.queue.popFirst(where: { $0.due <= now }) { gate.emit(.next(next.value)) }
                guard let next = book.queue.first else {
                    if book.sourceDone { gate.emit(.completed) }
                    return nil
                }
                book.generation &+= 1
                return (saturatingDifference(next.due, now), book.generation)
            }
        }
        if let (delay, current) = next { start(afterNanoseconds: delay, generation: current) }
    }
}
