extension ObservableType {
    /// Emits the last `count` values when the source completes.
    @inlinable
    public func takeLast(_ count: Int) -> Observable<Element> {
        guard count > 0 else { return ignoreElements() }
        return lift { observer in
            var ring: [Element] = []
            var start = 0
            return { event in
                switch event {
                case .next(let value):
                    if ring.count < count {
                        ring.append(value)
                    } else {
                        ring[start] = value
                        start = (start + 1) % count
                    }
                case .error: observer.on(event)
                case .completed:
                    for i in 0..<ring.count { observer.onNext(ring[(start + i) % ring.count]) }
                    observer.onCompleted()
                }
            }
        }
    }
}
