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

    /// Maps each value to an observable, unsubscribing from the previous one first (RxJS
    /// `switchMap`). Completes when the source has completed and the latest inner has too.
    public func flatMapLatest<Inner: ObservableType>(_ selector: @escaping (Element) throws -> Inner) -> Observable<Inner.Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            let slot = SerialDisposable()
            resources.insert(slot)
            var latest = 0
            var innerActive = false
            var outerDone = false
            resources.insert(
                source.subscribe { event in
                    switch event {
                    case .next(let value):
                        let inner: Observable<Inner.Element>
                        do { inner = try selector(value).asObservable() } catch {
                            gate.send(.error(error))
                            return
                        }
                        let id: Int = gate.locked {
                            latest += 1
                            innerActive = true
                            return latest
                        }
                        let holder = SingleAssignmentDisposable()
                        slot.set(holder)
                        holder.set(
                            inner.subscribe { innerEvent in
                                gate.locked {
                                    guard id == latest else { return }
                                    if case .completed = innerEvent {
                                        innerActive = false
                                        if outerDone { gate.emit(.completed) }
                                    } else {
                                        gate.emit(innerEvent)
                                    }
                                }
                            })
                    case .error(let error):
                        gate.send(.error(error))
                    case .completed:
                        gate.locked {
                            outerDone = true
                            if !innerActive { gate.emit(.completed) }
                        }
                    }
                })
        }
    }

    /// Maps a value to an observable only while no inner observable is active; values that
    /// arrive meanwhile are dropped (RxJS `exhaustMap`).
    public func flatMapFirst<Inner: ObservableType>(_ selector: @escaping (Element) throws -> Inner) -> Observable<Inner.Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            var innerActive = false
            var outerDone = false
            resources.insert(
                source.subscribe { event in
                    switch event {
                    case .next(let value):
                        let busy = gate.locked { innerActive }
                        if busy { return }
                        let inner: Observable<Inner.Element>
                        do { inner = try selector(value).asObservable() } catch {
                            gate.send(.error(error))
                            return
                        }
                        gate.locked { innerActive = true }
                        let holder = SingleAssignmentDisposable()
                        guard let key = resources.insert(holder) else { return }
                        holder.set(
                            inner.subscribe { innerEvent in
                                if case .completed = innerEvent {
                                    resources.remove(key)
                                    gate.locked {
                                        innerActive = false
                                        if outerDone { gate.emit(.completed) }
                                    }
                                } else {
                                    gate.send(innerEvent)
                                }
                            })
                    case .error(let error):
                        gate.send(.error(error))
                    case .completed:
                        gate.locked {
                            outerDone = true
                            if !innerActive { gate.emit(.completed) }
                        }
                    }
                })
        }
    }
}

extension ObservableType where Element: ObservableType {
    /// Merges the inner observables, at most `maxConcurrent` at once (0 or `.max`: unlimited).
    public func merge(maxConcurrent: Int = .max) -> Observable<Element.Element> {
        flatMap(maxConcurrent: maxConcurrent) { $0 }
    }

    /// Subscribes to the inner observables one after another.
    public func concat() -> Observable<Element.Element> {
        flatMap(maxConcurrent: 1) { $0 }
    }

    /// Mirrors the latest inner observable, unsubscribing from the previous one.
    public func switchLatest() -> Observable<Element.Element> {
        flatMapLatest { $0 }
    }
}

extension Observable {
    /// Merges the values of all `sources`; completes when all have completed.
    public static func merge<S: ObservableType>(_ sources: S...) -> Observable<Element> where S.Element == Element {
        merge(sources)
    }

    /// Merges the values of all `sources`, at most `maxConcurrent` subscribed at once.
    public static func merge<S: ObservableType>(_ sources: [S], maxConcurrent: Int = .max) -> Observable<Element>
    where S.Element == Element {
        Observable<S>.from(sources).merge(maxConcurrent: maxConcurrent)
    }

    /// Subscribes to `sources` one after another.
    public static func concat<S: ObservableType>(_ sources: S...) -> Observable<Element> where S.Element == Element {
        concat(sources)
    }

    /// Subscribes to `sources` one after another.
    public static func concat<S: ObservableType>(_ sources: [S]) -> Observable<Element> where S.Element == Element {
        Observable<S>.from(sources).concat()
    }
}

extension ObservableType {
    /// Merges this stream with `others`.
    public func merge<S: ObservableType>(with others: S...) -> Observable<Element> where S.Element == Element {
        Observable.merge([asObservable()] + others.map { $0.asObservable() })
    }

    /// Continues with `next` after this stream completes.
    public func concat<S: ObservableType>(_ next: S) -> Observable<Element> where S.Element == Element {
        Observable.concat([asObservable(), next.asObservable()])
    }
}
