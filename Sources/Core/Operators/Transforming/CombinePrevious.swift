extension ObservableType {
    /// Combines each value with the one before it, the first with `start` (ReactiveCocoa
    /// `combinePreviousWithStart:reduce:`); unlike ``pairwise()``, the first value is emitted.
    /// Errors and completion pass through.
    @inlinable
    public func combinePrevious<Result>(
        _ start: Element, _ combine: @escaping (_ previous: Element, _ current: Element) throws -> Result
    ) -> Observable<Result> {
        asObservable().lift { observer in
            let previous = SerialState(start)
            return { event in
                switch event {
                case .next(let value):
                    do {
                        let combined = try combine(previous.value, value)
                        previous.value = value
                        observer.onNext(combined)
                    } catch { observer.onError(error) }
                case .error(let error): observer.onError(error)
                case .completed: observer.onCompleted()
                }
            }
        }
    }

    /// Pairs each value with the one before it, the first with `start`.
    @inlinable
    public func combinePrevious(_ start: Element) -> Observable<(previous: Element, current: Element)> {
        combinePrevious(start) { (previous: $0, current: $1) }
    }
}
