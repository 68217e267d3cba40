extension ObservableType {
    /// Transforms each value and drops the `nil` results.
    @inlinable
    public func compactMap<Result>(_ transform: @escaping (Element) throws -> Result?) -> Observable<Result> {
        lift { observer in
            { event in
                switch event {
                case .next(let value):
                    do { if let mapped = try transform(value) { observer.onNext(mapped) } } catch { observer.onError(error) }
                case .error(let error): observer.onError(error)
                case .completed: observer.onCompleted()
                }
            }
        }
    }
}
