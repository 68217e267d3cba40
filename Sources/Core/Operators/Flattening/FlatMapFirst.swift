extension ObservableType {
    /// Maps a value to an observable only while no inner observable is active; values that
    /// arrive meanwhile are dropped (RxJS `exhaustMap`).
    @inlinable
    public func flatMapFirst<Inner: ObservableType>(_ selector: @escaping (Element) throws -> Inner) -> Observable<Inner.Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            var completion = OneInnerCompletion()
            resources.insert(
                source.subscribe { event in
                    switch event {
                    case .next(let value):
                        let busy = gate.locked { completion.innerActive }
                        if busy { return }
                        let inner: Observable<Inner.Element>
                        do { inner = try selector(value).asObservable() } catch {
                            gate.send(.error(error))
                            return
                        }
                        gate.locked { completion.innerActive = true }
                        let holder = SingleAssignmentDisposable()
                        guard let key = resources.insert(holder) else { return }
                        holder.set(
                            inner.subscribe { innerEvent in
                                if case .completed = innerEvent {
                                    resources.remove(key)
                                    gate.locked { completion.innerCompleted(gate) }
                                } else {
                                    gate.send(innerEvent)
                                }
                            })
                    case .error(let error):
                        gate.send(.error(error))
                    case .completed:
                        gate.locked { completion.outerCompleted(gate) }
                    }
                })
        }
    }
}
