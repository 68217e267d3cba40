extension ObservableType {
    /// Emits the last `count` values when the source completes.
    ///
    /// `takeLast(0)` (or a negative count) completes at once without subscribing to the source,
    /// as RxJS 7 does (`EMPTY`), like `take(0)`.
    @inlinable
    public func takeLast(_ count: Int) -> Observable<Element> {
        guard count > 0 else { return .empty() }
        return lift { observer in
            let state = SerialState((ring: [Element](), start: 0))
            return { event in
                switch event {
                case .next(let value):
                    if state.value.ring.count < count {
                        state.value.ring.append(value)
                    } else {
                        state.value.ring[state.value.start] = value
                        state.value.start = (state.value.start + 1) % count
                    }
                case .error: observer.on(event)
                case .completed:
                    let (ring, start) = state.value
                    for i in 0..<ring.count { observer.onNext(ring[(start + i) % ring.count]) }
                    observer.onCompleted()
                }
            }
        }
    }
}
