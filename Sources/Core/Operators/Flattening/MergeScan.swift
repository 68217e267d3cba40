extension ObservableType {
    /// Accumulates with inner observables (RxJS `mergeScan`): each source value and the current
    /// state go to `accumulator`, whose observable is merged into the output; every value an
    /// inner emits becomes the new state. At most `maxConcurrent` inners run at once; a waiting
    /// value is accumulated when its inner starts, so it sees the state of the ones before it.
    ///
    /// Emits nothing for an empty source (the seed is not emitted). Completes when the source
    /// and every inner have completed; any error ends it.
    ///
    /// ```
    /// source:  -a---b----|       accumulator: (acc, x) in cold "--(acc+1)|"
    /// result:  ---1---2--|       seed 0
    /// ```
    @inlinable
    public func mergeScan<State, Inner: ObservableType>(
        _ seed: State, maxConcurrent: Int = .max, accumulator: @escaping (State, Element) throws -> Inner
    ) -> Observable<State> where Inner.Element == State {
        let source = asObservable()
        return Observable.deferred {
            let state = Locked(seed)
            return source.flatMap(maxConcurrent: maxConcurrent) { value in
                Observable.deferred { try accumulator(state.withLock { $0 }, value) }
                    .do(onNext: { next in state.withLock { $0 = next } })
            }
        }
    }

    /// Accumulates with inner observables, following only the latest (RxJS `switchScan`): each
    /// source value and the current state go to `accumulator`, whose observable replaces the
    /// previous inner (which is unsubscribed); every value an inner emits becomes the state.
    ///
    /// Completes when the source and the latest inner have completed; any error ends it.
    @inlinable
    public func switchScan<State, Inner: ObservableType>(
        _ seed: State, accumulator: @escaping (State, Element) throws -> Inner
    ) -> Observable<State> where Inner.Element == State {
        let source = asObservable()
        return Observable.deferred {
            let state = Locked(seed)
            return source.flatMapLatest { value in
                try accumulator(state.withLock { $0 }, value).asObservable()
                    .do(onNext: { next in state.withLock { $0 = next } })
            }
        }
    }
}
