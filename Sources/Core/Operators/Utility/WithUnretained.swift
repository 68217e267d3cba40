extension ObservableType {
    /// Pairs each value with `object`, held weakly (RxSwift `withUnretained`): once the object
    /// is gone, the next value completes the stream instead. Errors and completion pass through.
    @inlinable
    public func withUnretained<Object: AnyObject, Result>(
        _ object: Object, resultSelector: @escaping (Object, Element) throws -> Result
    ) -> Observable<Result> {
        // Weak from here on: the observable itself must not keep the object alive.
        weak let weakObject = object
        return asObservable().lift { observer in
            return { event in
                switch event {
                case .next(let value):
                    guard let object = weakObject else { return observer.onCompleted() }
                    do { observer.onNext(try resultSelector(object, value)) } catch { observer.onError(error) }
                case .error(let error): observer.onError(error)
                case .completed: observer.onCompleted()
                }
            }
        }
    }

    /// Pairs each value with `object`, held weakly; completes at the first value after the
    /// object is gone.
    @inlinable
    public func withUnretained<Object: AnyObject>(_ object: Object) -> Observable<(Object, Element)> {
        withUnretained(object) { ($0, $1) }
    }
}
