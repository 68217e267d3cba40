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
}

extension ObservableType {
    /// Emits the smallest value by `areInIncreasingOrder` when the source completes (the first of
    /// equals, as `Sequence.min(by:)`), then completes; an empty source just completes (RxJS
    /// `min(comparer)`). A throwing comparer fails the sequence.
    @inlinable
    public func min(by areInIncreasingOrder: @escaping (Element, Element) throws -> Bool) -> Observable<Element> {
        extreme { value, best in try areInIncreasingOrder(value, best) }
    }

    /// Emits the largest value by `areInIncreasingOrder` when the source completes (the first of
    /// equals, as `Sequence.max(by:)`), then completes; an empty source just completes (RxJS
    /// `max(comparer)`). A throwing comparer fails the sequence.
    @inlinable
    public func max(by areInIncreasingOrder: @escaping (Element, Element) throws -> Bool) -> Observable<Element> {
        extreme { value, best in try areInIncreasingOrder(best, value) }
    }

    /// Keeps the value for which `isBetter(value, best)` holds against the best so far.
    @usableFromInline
    func extreme(by isBetter: @escaping (Element, Element) throws -> Bool) -> Observable<Element> {
        lift { observer in
            let best = SerialState<Element?>(nil)
            return { event in
                switch event {
                case .next(let value):
                    do {
                        if try best.value.map({ try isBetter(value, $0) }) ?? true { best.value = value }
                    } catch { observer.onError(error) }
                case .error(let error): observer.onError(error)
                case .completed:
                    if let best = best.value { observer.onNext(best) }
                    observer.onCompleted()
                }
            }
        }
    }
}
