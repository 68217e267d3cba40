extension ObservableType {
    /// Emits the first `count` values, then completes and unsubscribes; `take(0)` completes
    /// without subscribing.
    @inlinable
    public func take(_ count: Int) -> Observable<Element> {
        guard count > 0 else { return .empty() }
        return lift { observer in
            let remaining = SerialState(count)
            return { event in
                switch event {
                case .next(let value):
                    remaining.value -= 1
                    observer.onNext(value)
                    if remaining.value == 0 { observer.onCompleted() }
                case .error, .completed: observer.on(event)
                }
            }
        }
    }

    /// Emits values while `predicate` holds; completes at the first value that fails it (which
    /// is emitted too when `inclusive`).
    @inlinable
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
    @inlinable
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
}
