extension ObservableType {
    /// Emits each intermediate accumulation, the accumulator updating the state in place
    /// (RxSwift `scan(into:accumulator:)`): no copy of a collection state per value.
    @inlinable
    public func scan<State>(into seed: State, accumulator: @escaping (inout State, Element) throws -> Void) -> Observable<State> {
        lift { observer in
            let state = SerialState(seed)
            return { event in
                switch event {
                case .next(let value):
                    do {
                        try accumulator(&state.value, value)
                        observer.onNext(state.value)
                    } catch { observer.onError(error) }
                case .error(let error): observer.onError(error)
                case .completed: observer.onCompleted()
                }
            }
        }
    }
}
