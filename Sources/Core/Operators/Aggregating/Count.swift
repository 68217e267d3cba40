extension ObservableType {
    /// Emits how many values satisfied `predicate` (all of them by default) when the source
    /// completes, then completes (RxJS `count`). An error, or one thrown by `predicate`, passes
    /// at once.
    @inlinable
    public func count(where predicate: @escaping (Element) throws -> Bool = { _ in true }) -> Observable<Int> {
        lift { observer in
            let total = SerialState(0)
            return { event in
                switch event {
                case .next(let value):
                    do {
                        if try predicate(value) { total.value += 1 }
                    } catch {
                        observer.onError(error)
                    }
                case .error(let error): observer.onError(error)
                case .completed:
                    observer.onNext(total.value)
                    observer.onCompleted()
                }
            }
        }
    }
}
