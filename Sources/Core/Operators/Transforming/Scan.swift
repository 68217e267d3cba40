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
        // One accumulation loop: scan(into:)'s, the state replaced rather than updated in place.
        scan(into: seed) { state, value in state = try accumulator(state, value) }
    }
}
