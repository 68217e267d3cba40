extension ObservableType {
    /// Transforms each value; an error thrown by `transform` ends the stream with that error.
    @inlinable
    public func map<Result>(_ transform: @escaping (Element) throws -> Result) -> Observable<Result> {
        asObservable().map(transform)
    }
}

extension Observable {
    /// Transforms each value; an error thrown by `transform` ends the stream with that error.
    ///
    @inlinable
    public func map<Result>(_ transform: @escaping (Element) throws -> Result) -> Observable<Result> {
        lift { (observer: Observer<Result>) in
            { event in
                switch event {
                case .next(let value):
                    do { observer.onNext(try transform(value)) } catch { observer.onError(error) }
                case .error(let error): observer.onError(error)
                case .completed: observer.onCompleted()
                }
            }
        }
    }
}
