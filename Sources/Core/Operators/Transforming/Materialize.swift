extension ObservableType {
    /// Turns every event into a value, then completes.
    @inlinable
    public func materialize() -> Observable<Event<Element>> {
        lift { observer in
            { event in
                observer.onNext(event)
                if event.isTerminal { observer.onCompleted() }
            }
        }
    }

    /// Turns materialized events back into a stream.
    @inlinable
    public func dematerialize<Value>() -> Observable<Value> where Element == Event<Value> {
        lift { observer in
            { event in
                switch event {
                case .next(let inner): observer.on(inner)
                case .error(let error): observer.onError(error)
                case .completed: observer.onCompleted()
                }
            }
        }
    }
}
