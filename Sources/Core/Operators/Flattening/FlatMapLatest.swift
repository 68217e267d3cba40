extension ObservableType {
    /// Maps each value to an observable, unsubscribing from the previous one first (RxJS
    /// `switchMap`). Completes when the source has completed and the latest inner has too.
    @inlinable
    public func flatMapLatest<Inner: ObservableType>(_ selector: @escaping (Element) throws -> Inner) -> Observable<Inner.Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            let slot = SerialDisposable()
            resources.insert(slot)
            var latest = 0
            var completion = OneInnerCompletion()
            resources.insert(
                source.subscribe { event in
                    switch event {
                    case .next(let value):
                        let inner: Inner
                        do { inner = try selector(value) } catch {
                            gate.send(.error(error))
                            return
                        }
                        let id: Int = gate.locked {
                            latest += 1
                            completion.innerActive = true
                            return latest
                        }
                        // The observer is the inner subscription: put in the slot before the
                        // inner observable runs (disposing the previous one), it needs no holder.
                        let observer = Observer<Inner.Element> { innerEvent in
                            gate.locked {
                                guard id == latest else { return }
                                if case .completed = innerEvent {
                                    completion.innerCompleted(gate)
                                } else {
                                    gate.emit(innerEvent)
                                }
                            }
                        }
                        slot.set(observer)
                        inner._run(observer)
                    case .error(let error):
                        gate.send(.error(error))
                    case .completed:
                        gate.locked { completion.outerCompleted(gate) }
                    }
                })
        }
    }
}

extension ObservableType where Element: ObservableType {
    /// Mirrors the latest inner observable, unsubscribing from the previous one.
    @inlinable
    public func switchLatest() -> Observable<Element.Element> {
        flatMapLatest { $0 }
    }
}
