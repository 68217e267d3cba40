extension ObservableType {
    /// Maps each value to an observable and merges their values, with at most `maxConcurrent`
    /// inner subscriptions at once; later inner observables wait in FIFO order.
    ///
    /// `maxConcurrent: 1` is ``concatMap(_:)``; `0` or `.max` is unlimited (RAC's `flatten:`).
    /// Completes when the source and every inner observable have completed; any error ends the
    /// whole stream.
    public func flatMap<Inner: ObservableType>(
        maxConcurrent: Int = .max,
        _ selector: @escaping (Element) throws -> Inner
    ) -> Observable<Inner.Element> {
        let source = asObservable()
        let limit = maxConcurrent <= 0 ? Int.max : maxConcurrent
        typealias Result = Inner.Element
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            var active = 0
            var outerDone = false
            var waiting: [Observable<Result>] = []
            var waitingHead = 0

            // Subscribes inner observables one at a time, without recursion, on whichever
            // thread is already subscribing one: a synchronous completion that frees a slot for
            // a waiting inner queues it here instead of recursing, and one arriving on another
            // thread never subscribes concurrently with the drain.
            let starter = Locked<Trampoline<Observable<Result>>?>(nil)
            let trampoline = Trampoline<Observable<Result>> { inner in
                let holder = SingleAssignmentDisposable()
                guard let key = resources.insert(holder) else { return }
                holder.set(
                    inner.subscribe { event in
                        guard case .completed = event else { return gate.send(event) }
                        resources.remove(key)
                        let successor: Observable<Result>? = gate.locked {
                            if waitingHead < waiting.count {
                                defer {
                                    waitingHead += 1
                                    if waitingHead > 32 && waitingHead * 2 > waiting.count {
                                        waiting.removeFirst(waitingHead)
                                        waitingHead = 0
                                    }
                                }
                                return waiting[waitingHead]
                            }
                            active -= 1
                            if active == 0 && outerDone { gate.emit(.completed) }
                            return nil
                        }
                        if let successor { starter.withLock { $0 }?.run(successor) }
                    })
            }
            starter.withLock { $0 = trampoline }
            func start(_ inner: Observable<Result>) { trampoline.run(inner) }

            resources.insert(
                source.subscribe { event in
                    switch event {
                    case .next(let value):
                        let inner: Observable<Result>
                        do { inner = try selector(value).asObservable() } catch {
                            gate.send(.error(error))
                            return
                        }
                        let startNow: Bool = gate.locked {
                            if active < limit {
                                active += 1
                                return true
                            }
                            waiting.append(inner)
                            return false
                        }
                        if startNow { start(inner) }
                    case .error(let error):
                        gate.send(.error(error))
                    case .completed:
                        gate.locked {
                            outerDone = true
                            if active == 0 { gate.emit(.completed) }
                        }
                    }
                })
        }
    }

    /// Maps each value to an observable and subscribes to them one after another.
    public func concatMap<Inner: ObservableType>(_ selector: @escaping (Element) throws -> Inner) -> Observable<Inner.Element> {
        flatMap(maxConcurrent: 1, selector)
    }
}
