extension ObservableType {
    /// Passes the values for which `predicate` holds; a thrown error ends the stream.
    @inlinable
    public func filter(_ predicate: @escaping (Element) throws -> Bool) -> Observable<Element> {
        asObservable().filter(predicate)
    }

    /// Drops values equal (by `areEqual`) to the value before them.
    public func distinctUntilChanged(_ areEqual: @escaping (Element, Element) throws -> Bool) -> Observable<Element> {
        lift { observer in
            var last: Element?
            return { event in
                switch event {
                case .next(let value):
                    do {
                        if let previous = last, try areEqual(previous, value) { return }
                        last = value
                        observer.onNext(value)
                    } catch { observer.onError(error) }
                case .error, .completed: observer.on(event)
                }
            }
        }
    }

    /// Drops values whose key equals the key of the value before them.
    public func distinctUntilChanged<Key: Equatable>(by key: @escaping (Element) throws -> Key) -> Observable<Element> {
        distinctUntilChanged { try key($0) == key($1) }
    }

    /// Emits the first `count` values, then completes and unsubscribes; `take(0)` completes
    /// without subscribing.
    public func take(_ count: Int) -> Observable<Element> {
        guard count > 0 else { return .empty() }
        return lift { observer in
            var remaining = count
            return { event in
                switch event {
                case .next(let value):
                    remaining -= 1
                    observer.onNext(value)
                    if remaining == 0 { observer.onCompleted() }
                case .error, .completed: observer.on(event)
                }
            }
        }
    }

    /// Emits the last `count` values when the source completes.
    public func takeLast(_ count: Int) -> Observable<Element> {
        guard count > 0 else { return ignoreElements() }
        return lift { observer in
            var ring: [Element] = []
            var start = 0
            return { event in
                switch event {
                case .next(let value):
                    if ring.count < count {
                        ring.append(value)
                    } else {
                        ring[start] = value
                        start = (start + 1) % count
                    }
                case .error: observer.on(event)
                case .completed:
                    for i in 0..<ring.count { observer.onNext(ring[(start + i) % ring.count]) }
                    observer.onCompleted()
                }
            }
        }
    }

    /// Emits values while `predicate` holds; completes at the first value that fails it (which
    /// is emitted too when `inclusive`).
    public func take(while predicate: @escaping (Element) throws -> Bool, inclusive: Bool = false) -> Observable<Element> {
        lift { observer in
            { event in
                switch event {
                case .next(let value):
                    do {
                        if try predicate(value) {
                            observer.onNext(value)
                        } else {
                            if inclusive { observer.onNext(value) }
                            observer.onCompleted()
                        }
                    } catch { observer.onError(error) }
                case .error, .completed: observer.on(event)
                }
            }
        }
    }

    /// Mirrors the source until `notifier` emits a value, then completes. A notifier that
    /// completes without a value changes nothing (RxJS 7); its error is forwarded.
    public func take<Other: ObservableType>(until notifier: Other) -> Observable<Element> {
        let source = asObservable()
        let notifier = notifier.asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            resources.insert(
                notifier.subscribe { event in
                    switch event {
                    case .next: gate.send(.completed)
                    case .error(let error): gate.send(.error(error))
                    case .completed: break
                    }
                })
            if downstream.isDisposed { return }
            resources.insert(source.subscribe { gate.send($0) })
        }
    }

    /// Drops the first `count` values.
    public func skip(_ count: Int) -> Observable<Element> {
        lift { observer in
            var remaining = count
            return { event in
                if case .next = event, remaining > 0 {
                    remaining -= 1
                    return
                }
                observer.on(event)
            }
        }
    }

    /// Drops values while `predicate` holds, then emits everything.
    public func skip(while predicate: @escaping (Element) throws -> Bool) -> Observable<Element> {
        lift { observer in
            var skipping = true
            return { event in
                if case .next(let value) = event, skipping {
                    do {
                        if try predicate(value) { return }
                        skipping = false
                    } catch {
                        observer.onError(error)
                        return
                    }
                }
                observer.on(event)
            }
        }
    }

    /// Drops values until `notifier` emits a value. A notifier that completes silently keeps
    /// dropping everything (RxJS 7); its error is forwarded.
    public func skip<Other: ObservableType>(until notifier: Other) -> Observable<Element> {
        let source = asObservable()
        let notifier = notifier.asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            var open = false
            let notifierSubscription = SingleAssignmentDisposable()
            resources.insert(notifierSubscription)
            notifierSubscription.set(
                notifier.subscribe { event in
                    switch event {
                    case .next:
                        gate.locked { open = true }
                        notifierSubscription.dispose()
                    case .error(let error): gate.send(.error(error))
                    case .completed: break
                    }
                })
            resources.insert(
                source.subscribe { event in
                    gate.locked {
                        if case .next = event, !open { return }
                        gate.emit(event)
                    }
                })
        }
    }

    /// Emits the first value (for which `predicate` holds) and completes; errors with
    /// ``RxError/noElements`` when the source completes first (RxJS 7 `first`).
    public func first(where predicate: @escaping (Element) throws -> Bool = { _ in true }) -> Observable<Element> {
        lift { observer in
            { event in
                switch event {
                case .next(let value):
                    do {
                        if try predicate(value) {
                            observer.onNext(value)
                            observer.onCompleted()
                        }
                    } catch { observer.onError(error) }
                case .error: observer.on(event)
                case .completed: observer.onError(RxError.noElements)
                }
            }
        }
    }

    /// Emits the last value (for which `predicate` holds) when the source completes; errors
    /// with ``RxError/noElements`` when there is none (RxJS 7 `last`).
    public func last(where predicate: @escaping (Element) throws -> Bool = { _ in true }) -> Observable<Element> {
        lift { observer in
            var last: Element?
            return { event in
                switch event {
                case .next(let value):
                    do { if try predicate(value) { last = value } } catch { observer.onError(error) }
                case .error: observer.on(event)
                case .completed:
                    if let last {
                        observer.onNext(last)
                        observer.onCompleted()
                    } else {
                        observer.onError(RxError.noElements)
                    }
                }
            }
        }
    }

    /// Emits the value at `index` and completes; errors with ``RxError/argumentOutOfRange``
    /// when the source completes earlier, unless a `defaultValue` is given.
    public func elementAt(_ index: Int, defaultValue: Element? = nil) -> Observable<Element> {
        precondition(index >= 0, "elementAt needs a non-negative index")
        return lift { observer in
            var remaining = index
            return { event in
                switch event {
                case .next(let value):
                    if remaining == 0 {
                        observer.onNext(value)
                        observer.onCompleted()
                    }
                    remaining -= 1
                case .error: observer.on(event)
                case .completed:
                    if let defaultValue {
                        observer.onNext(defaultValue)
                        observer.onCompleted()
                    } else {
                        observer.onError(RxError.argumentOutOfRange)
                    }
                }
            }
        }
    }

    /// Drops every value; keeps completion and error.
    public func ignoreElements() -> Observable<Element> {
        lift { observer in
            { event in if event.isTerminal { observer.on(event) } }
        }
    }

    /// Emits `defaultValue` when the source completes without a value.
    public func ifEmpty(default defaultValue: Element) -> Observable<Element> {
        lift { observer in
            var empty = true
            return { event in
                switch event {
                case .next: empty = false
                case .completed: if empty { observer.onNext(defaultValue) }
                case .error: break
                }
                observer.on(event)
            }
        }
    }
}

extension ObservableType where Element: Equatable {
    /// Drops values equal to the value before them.
    public func distinctUntilChanged() -> Observable<Element> { distinctUntilChanged(==) }
}

extension Observable {
    /// Passes the values for which `predicate` holds; a thrown error ends the stream.
    @inlinable
    public func filter(_ predicate: @escaping (Element) throws -> Bool) -> Observable<Element> {
        lift { observer in
            { event in
                switch event {
                case .next(let value):
                    do { if try predicate(value) { observer.onNext(value) } } catch { observer.onError(error) }
                case .error, .completed: observer.on(event)
                }
            }
        }
    }

}
