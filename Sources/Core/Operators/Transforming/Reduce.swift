extension ObservableType {
    /// Emits the final accumulation when the source completes (`seed` for an empty source).
    @inlinable
    public func reduce<State>(_ seed: State, accumulator: @escaping (State, Element) throws -> State) -> Observable<State> {
        lift { observer in
            let state = SerialState(seed)
            return { event in
                switch event {
                case .next(let value):
                    do { state.value = try accumulator(state.value, value) } catch { observer.onError(error) }
                case .error(let error): observer.onError(error)
                case .completed:
                    observer.onNext(state.value)
                    observer.onCompleted()
                }
            }
        }
    }

    /// ``reduce(_:accumulator:)`` whose final state goes through `mapResult` (RxSwift
    /// `reduce(_:accumulator:mapResult:)`).
    @inlinable
    public func reduce<State, Result>(
        _ seed: State, accumulator: @escaping (State, Element) throws -> State, mapResult: @escaping (State) throws -> Result
    ) -> Observable<Result> {
        reduce(seed, accumulator: accumulator).map(mapResult)
    }
}
