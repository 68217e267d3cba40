extension ObservableType {
    /// Subscribes to the source `count` times in a row, each time after the previous one
    /// completes (RxJS `repeat(count)`); an error ends it at once. `repeat(0)` completes.
    public func `repeat`(_ count: Int) -> Observable<Element> {
        Observable.concat(Array(repeating: asObservable(), count: Swift.max(count, 0)))
    }
}
