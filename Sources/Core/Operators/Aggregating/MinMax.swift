// Inside extensions of ObservableType, write `Swift.min`/`Swift.max` for the global functions:
// these members shadow them there.
extension ObservableType where Element: Comparable {
    /// Emits the smallest value when the source completes (the first of equals), then
    /// completes; an empty source just completes (RxJS `min`).
    @inlinable
    public func min() -> Observable<Element> { extreme(by: <) }

    /// Emits the largest value when the source completes (the first of equals), then
    /// completes; an empty source just completes (RxJS `max`).
    @inlinable
    public func max() -> Observable<Element> { extreme(by: >) }

    @usableFromInline
    func extreme(by isBetter: @escaping (Element, Element) -> Bool) -> Observable<Element> {
        lift { observer in
            let best = SerialState<Element?>(nil)
            return { event in
                switch event {
                case .next(let value):
                    if best.value.map({ isBetter(value, $0) }) ?? true { best.value = value }
                case .error(let error): observer.onError(error)
                case .completed:
                    if let best = best.value { observer.onNext(best) }
                    observer.onCompleted()
                }
            }
        }
    }
}
