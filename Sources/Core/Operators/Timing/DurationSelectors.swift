extension ObservableType {
    /// At a value, subscribes to `durationSelector(value)`; when that emits its first value, emits
    /// the latest source value seen meanwhile and starts over at the next value (RxJS 7
    /// `audit(durationSelector)`; ``audit(_:scheduler:)`` is the form with a fixed duration). A
    /// duration that completes without a value ends the wait without emitting (the value waits
    /// for the next duration); a source completion during a wait waits for it; errors from
    /// either side pass at once.
    ///
    /// ```
    /// source:                      -a-b-----c--d---|
    /// audit { _ in timer(3) }:     ----b--------d--|
    /// ```
    @inlinable
    public func audit<D: ObservableType>(_ durationSelector: @escaping (Element) throws -> D) -> Observable<Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            let duration = SerialDisposable()
            resources.insert(duration)
            let state = DurationWindow<Element>()
            resources.insert(
                source.subscribe { event in
                    let opened: (Int, Element)? = gate.locked {
                        switch event {
                        case .next(let value):
                            state.latest = value
                            return state.active == 0 ? (state.open(), value) : nil
                        case .error(let error): gate.emit(.error(error))
                        case .completed:
                            state.sourceDone = true
                            if state.latest == nil || state.active == 0 { gate.emit(.completed) }
                        }
                        return nil
                    }
                    guard let (window, value) = opened else { return }
                    state.watch(window, of: value, durationSelector, gate: gate, in: duration) { emitting in
                        if emitting, let value = state.latest {
                            state.latest = nil
                            gate.emit(.next(value))
                        }
                        if state.sourceDone { gate.emit(.completed) }
                        return nil
                    }
                })
        }
    }

    /// Emits a value and ignores the values that follow until `durationSelector(value)` emits
    /// (RxJS 7 `throttle(durationSelector, { leading, trailing })`): with `leading` the value that
    /// opens a window is emitted at once; with `trailing` the last value seen in the window is
    /// emitted when it ends, and opens the next window. A duration that completes without a
    /// value ends its window without a trailing value. Completion waits for a pending trailing
    /// value; errors from either side pass at once.
    ///
    /// ```
    /// source:                                   -a-b-c----d---|
    /// throttle { _ in timer(3) }:               -a--------d---|
    /// throttle(trailing: true) { _ in timer(3) }: -a--c---d----|  (c ends a's window and opens one)
    /// ```
    @inlinable
    public func throttle<D: ObservableType>(
        leading: Bool = true, trailing: Bool = false, _ durationSelector: @escaping (Element) throws -> D
    ) -> Observable<Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            let duration = SerialDisposable()
            resources.insert(duration)
            let state = DurationWindow<Element>()

            // Under the lock: emits the pending value; returns the window it opens, if any.
            func send() -> (Int, Element)? {
                guard let value = state.latest else { return nil }
                state.latest = nil
                gate.emit(.next(value))
                return state.sourceDone ? nil : (state.open(), value)
            }
            // Outside the lock: subscribes to the window's duration.
            func watch(_ opened: (Int, Element)?) {
                guard let (window, value) = opened else { return }
                state.watch(window, of: value, durationSelector, gate: gate, in: duration, then: watch) { emitting in
                    guard trailing else {
                        if state.sourceDone { gate.emit(.completed) }
                        return nil
                    }
                    let next = emitting ? send() : nil
                    if state.sourceDone { gate.emit(.completed) }
                    return next
                }
            }

            resources.insert(
                source.subscribe { event in
                    watch(
                        gate.locked {
                            switch event {
                            case .next(let value):
                                state.latest = value
                                guard state.active == 0 else { return nil }
                                return leading ? send() : (state.open(), value)
                            case .error(let error): gate.emit(.error(error))
                            case .completed:
                                state.sourceDone = true
                                if !(trailing && state.latest != nil && state.active != 0) { gate.emit(.completed) }
                            }
                            return nil
                        })
                })
        }
    }
}

/// The state of `audit` and `throttle` with a duration selector, touched under their gate's lock.
@usableFromInline
final class DurationWindow<Element>: @unchecked Sendable {
    /// The value waiting to be emitted.
    @usableFromInline var latest: Element?
    /// The window whose duration runs (0: none).
    @usableFromInline var active = 0
    @usableFromInline var count = 0
    @usableFromInline var sourceDone = false

    @usableFromInline init() {}

    /// Opens a window and returns its number.
    @usableFromInline func open() -> Int {
        count += 1
        active = count
        return count
    }

    /// Subscribes to the duration `selector(value)` of `window`, in `slot`: its first value ends
    /// the window (`end(true)`), its completion too (`end(false)`), its error fails `gate`. `end`
    /// runs under the lock and may open the next window, passed to `then` outside it.
    @usableFromInline func watch<D: ObservableType, Output>(
        _ window: Int, of value: Element, _ selector: (Element) throws -> D, gate: Gate<Output>, in slot: SerialDisposable,
        then next: @escaping ((Int, Element)?) -> Void = { _ in }, end: @escaping (_ emitting: Bool) -> (Int, Element)?
    ) {
        let subscription = SingleAssignmentDisposable()
        slot.set(subscription)
        let selected: D
        do {
            selected = try selector(value)
        } catch {
            gate.locked { gate.emit(.error(error)) }
            return
        }
        subscription.set(
            selected.subscribe { [self] event in
                var ended = false
                let opened: (Int, Element)? = gate.locked {
                    guard window == active else { return nil }
                    switch event {
                    case .next, .completed:
                        active = 0
                        ended = true
                        if case .next = event { return end(true) }
                        return end(false)
                    case .error(let error):
                        gate.emit(.error(error))
                        return nil
                    }
                }
                if ended { subscription.dispose() }
                next(opened)
            })
    }
}
