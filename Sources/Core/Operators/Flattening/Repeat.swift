extension ObservableType {
    /// Subscribes to the source `count` times in a row, each time after the previous one
    /// completes (RxJS `repeat(count)`); an error ends it at once. `repeat(0)` completes.
    public func `repeat`(_ count: Int) -> Observable<Element> {
        Observable.concat(Array(repeating: asObservable(), count: Swift.max(count, 0)))
    }
}

/// Marks the end of one pass of ``ObservableType/repeat()``, so the retry machinery (a loop,
/// not recursion, with the runaway guard) can serve it.
private struct RepeatPass: Error {}

extension ObservableType {
    /// Subscribes to the source again each time it completes, without end (RxSwift/RxJS
    /// `repeat()`); an error, or unsubscribing, ends it. Under a virtual-time driver a source
    /// that completes at once ends at the step limit instead of spinning.
    public func `repeat`() -> Observable<Element> {
        Observable.concat(asObservable(), Observable.error(RepeatPass()))
            .retrying { error, _ in error is RepeatPass }
            .catch { error in error is RepeatPass ? Observable<Element>.empty() : Observable.error(error) }
    }
}
