extension ObservableType {
    /// Drops the first `count` values.
    @inlinable
    public func skip(_ count: Int) -> Observable<Element> {
        lift { observer in
            let remaining = SerialState(count)
            return { event in
                if case .next = event, remaining.value > 0 {
                    remaining.value -= 1
                    return
                }
                observer.on(event)
            }
        }
    }

    /// Drops values while `predicate` holds, then emits everything.
    @inlinable
    public func skip(while predicate: @escaping (Element) throws -> Bool) -> Observable<Element> {
        lift { observer in
            let skipping = SerialState(true)
            return { event in
                if case .next(let value) = event, skipping.value {
                    do {
                        if try predicate(value) { return }
                        skipping.value = false
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
    @inlinable
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
}
