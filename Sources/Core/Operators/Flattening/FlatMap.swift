extension ObservableType {
    /// Maps each value to an observable and merges their values, with at most `maxConcurrent`
    /// inner subscriptions at once; later inner observables wait in FIFO order.
    ///
    /// `maxConcurrent: 1` is ``concatMap(_:)``; `0` or `.max` is unlimited (RAC's `flatten:`).
    /// Completes when the source and every inner observable have completed; any error ends the
    /// whole stream.
    // Inlinable, as the internals it uses, so that a client's element types are specialized:
    // unspecialized, every inner event looked generic metadata up (a quarter of a flatMap test).
    @inlinable
    public func flatMap<Inner: ObservableType>(
        maxConcurrent: Int = .max,
        _ selector: @escaping (Element) throws -> Inner
    ) -> Observable<Inner.Element> {
        let source = asObservable()
        let limit = maxConcurrent <= 0 ? Int.max : maxConcurrent
        typealias Result = Inner.Element
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            var slots = Slots<Inner>(limit: limit)

            // Subscribes inner observables one at a time, without recursion, on whichever
            // thread is already subscribing one: a synchronous completion that frees a slot for
            // a waiting inner queues it here instead of recursing, and one arriving on another
            // thread never subscribes concurrently with the drain.
            let starter = Locked<Trampoline<Inner>?>(nil)
            let trampoline = Trampoline<Inner> { inner in
                // The observer is the inner subscription, made with its key under the
                // composite's lock: no holder between them.
                let observer = resources.insert { key in
                    Observer<Result> { event in
                        guard case .completed = event else { return gate.send(event) }
                        resources.remove(key)
                        let successor: Inner? = gate.locked {
                            let next = slots.release()
                            if slots.isFinished { gate.emit(.completed) }
                            return next
                        }
                        if let successor { starter.withLock { $0 }?.run(successor) }
                    }
                }
                if let observer { inner._run(observer) }
            }
            starter.withLock { $0 = trampoline }
            func start(_ inner: Inner) { trampoline.run(inner) }

            resources.insert(
                source.subscribe { event in
                    switch event {
                    case .next(let value):
                        let inner: Inner
                        do { inner = try selector(value) } catch {
                            gate.send(.error(error))
                            return
                        }
                        if gate.locked({ slots.admit(inner) }) { start(inner) }
                    case .error(let error):
                        gate.send(.error(error))
                    case .completed:
                        gate.locked {
                            slots.outerDone = true
                            if slots.isFinished { gate.emit(.completed) }
                        }
                    }
                })
        }
    }

    /// Maps each value to an observable and subscribes to them one after another.
    @inlinable
    public func concatMap<Inner: ObservableType>(_ selector: @escaping (Element) throws -> Inner) -> Observable<Inner.Element> {
        flatMap(maxConcurrent: 1, selector)
    }
}

/// flatMap's bookkeeping, touched only under its gate's lock: how many inners run, which wait.
@usableFromInline
struct Slots<Inner> {
    @usableFromInline let limit: Int
    @usableFromInline var active = 0
    @usableFromInline var waiting = FIFOQueue<Inner>()
    /// The source has completed.
    @usableFromInline var outerDone = false

    @inlinable init(limit: Int) { self.limit = limit }

    /// Whether `inner` may start now; otherwise it waits its turn.
    @inlinable mutating func admit(_ inner: Inner) -> Bool {
        guard active < limit else {
            waiting.append(inner)
            return false
        }
        active += 1
        return true
    }

    /// An inner completed: the next waiting one takes its slot, if any.
    @inlinable mutating func release() -> Inner? {
        if let next = waiting.popFirst() { return next }
        active -= 1
        return nil
    }

    /// Nothing runs, nothing waits, and the source is done.
    @inlinable var isFinished: Bool { outerDone && active == 0 }
}
