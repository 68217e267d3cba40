extension ObservableType {
    /// On each value, combines it with the latest value of `other`; values before `other` has
    /// emitted are dropped. Completes with this stream; `other`'s completion changes nothing,
    /// its error is forwarded.
    @inlinable
    public func withLatestFrom<Other: ObservableType, Result>(
        _ other: Other, resultSelector: @escaping (Element, Other.Element) throws -> Result
    ) -> Observable<Result> {
        let source = asObservable()
        let other = other.asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            var latest: Other.Element?
            resources.insert(
                other.subscribe { event in
                    gate.locked {
                        switch event {
                        case .next(let value): latest = value
                        case .error(let error): gate.emit(.error(error))
                        case .completed: break
                        }
                    }
                })
            resources.insert(
                source.subscribe { event in
                    gate.locked {
                        switch event {
                        case .next(let value):
                            guard let latest else { return }
                            do { gate.emit(.next(try resultSelector(value, latest))) } catch { gate.emit(.error(error)) }
                        case .error(let error): gate.emit(.error(error))
                        case .completed: gate.emit(.completed)
                        }
                    }
                })
        }
    }

    /// On each value, emits the latest value of `other`.
    @inlinable
    public func withLatestFrom<Other: ObservableType>(_ other: Other) -> Observable<Other.Element> {
        withLatestFrom(other) { $1 }
    }
}
