extension ObservableType {
    /// Emits each value and feeds it back through `transform` (RxJS `expand`): the source's
    /// values and every value of every inner are emitted, then mapped to a new inner, until
    /// the inners come back empty. At most `maxConcurrent` inners run at once; a value waiting
    /// for a slot is emitted when its inner starts (as RxJS does).
    ///
    /// Completes when the source and every inner have completed; any error, including one
    /// thrown by `transform`, ends it. Inners that emit synchronously run in a loop, not by
    /// recursion; under a virtual-time driver an endless synchronous expansion stops at the
    /// step limit.
    ///
    /// ```
    /// source:  -1------|        transform: x < 8 ? "--(2x)|" : empty
    /// result:  -1-2-4-8|
    /// ```
    @inlinable
    public func expand<Inner: ObservableType>(
        maxConcurrent: Int = .max, _ transform: @escaping (Element) throws -> Inner
    ) -> Observable<Element> where Inner.Element == Element {
        let source = asObservable()
        let limit = maxConcurrent <= 0 ? Int.max : maxConcurrent
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            var slots = Slots<Element>(limit: limit)
            // Set once, before the source is subscribed; read by inners that admit values.
            var startInner: (Element) -> Void = { _ in }

            // Emits `value` now if a slot is free (and returns true: start its inner), else queues it.
            func admit(_ value: Element) -> Bool {
                gate.locked {
                    guard slots.admit(value) else { return false }
                    gate.emit(.next(value))
                    return true
                }
            }
            let trampoline = Trampoline<Element> { value in
                guard RunawayGuard.spend("expand") else { return }
                let inner: Observable<Element>
                do { inner = try transform(value).asObservable() } catch { return gate.send(.error(error)) }
                let holder = SingleAssignmentDisposable()
                guard let key = resources.insert(holder) else { return }
                holder.set(
                    inner.subscribe { event in
                        switch event {
                        case .next(let next): if admit(next) { startInner(next) }
                        case .error(let error): gate.send(.error(error))
                        case .completed:
                            resources.remove(key)
                            let successor: Element? = gate.locked {
                                let next = slots.release()
                                if let next { gate.emit(.next(next)) }
                                if slots.isFinished { gate.emit(.completed) }
                                return next
                            }
                            if let successor { startInner(successor) }
                        }
                    })
            }
            startInner = { trampoline.run($0) }

            resources.insert(
                source.subscribe { event in
                    switch event {
                    case .next(let value): if admit(value) { trampoline.run(value) }
                    case .error(let error): gate.send(.error(error))
                    case .completed:
                        gate.locked {
                            slots.outerDone = true
                            if slots.isFinished { gate.emit(.completed) }
                        }
                    }
                })
        }
    }
}
