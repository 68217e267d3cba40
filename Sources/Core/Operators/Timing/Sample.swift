extension ObservableType {
    /// Emits the latest value, if a new one arrived, whenever `notifier` emits. Completes with
    /// the source; the notifier's completion changes nothing (RxJS 7 `sample`).
    @inlinable
    public func sample<Notifier: ObservableType>(_ notifier: Notifier) -> Observable<Element> {
        let source = asObservable()
        let notifier = notifier.asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            var latest: Element?
            resources.insert(
                source.subscribe { event in
                    gate.locked {
                        switch event {
                        case .next(let value): latest = value
                        case .error, .completed: gate.emit(event)
                        }
                    }
                })
            resources.insert(
                notifier.subscribe { event in
                    gate.locked {
                        switch event {
                        case .next:
                            if let value = latest {
                                latest = nil
                                gate.emit(.next(value))
                            }
                        case .error(let error): gate.emit(.error(error))
                        case .completed: break
                        }
                    }
                })
        }
    }
}
