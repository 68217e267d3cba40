extension ObservableType {
    /// Drops the last `count` values: each value is emitted once `count` newer ones have
    /// arrived, so the output lags the source by `count` values (RxJS `skipLast`). Completion
    /// and errors pass at once; the held values are dropped.
    @inlinable
    public func skipLast(_ count: Int) -> Observable<Element> {
        guard count > 0 else { return asObservable() }
        return lift { observer in
            let state = SerialState((ring: [Element](), oldest: 0))
            return { event in
                switch event {
                case .next(let value):
                    if state.value.ring.count < count {
                        state.value.ring.append(value)
                        return
                    }
                    let oldest = state.value.oldest
                    observer.onNext(state.value.ring[oldest])
                    state.value.ring[oldest] = value
                    state.value.oldest = (oldest + 1) % count
                case .error, .completed: observer.on(event)
                }
            }
        }
    }
}
