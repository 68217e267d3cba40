extension ObservableType {
    /// Emits each intermediate accumulation, starting from `seed`.
    @inlinable
    public func scan<State>(_ seed: State, accumulator: @escaping (State, Element) throws -> State) -> Observable<State> {
        asObservable().scan(seed, accumulator: accumulator)
    }
}

extension Observable {
    /// Emits each intermediate accumulation, starting from `seed`.
    @inlinable
    public func scan<State>(_ seed: State, accumulator: @escaping (State, Element) throws -> State) -> Observable<State> {
        lift { observer in
            let state = SerialState(seed)
            return { event in
                switch event {
                case .next(let value):
                    do {
                        state.value = try accumulator(state.value, value)
                        observer.onNext(state.value)
                    } catch { observer.onError(error) }
                case .error(let error): observer.onError(error)
                case .completed: observer.onCompleted()
                }
            }
        }
    }
}
