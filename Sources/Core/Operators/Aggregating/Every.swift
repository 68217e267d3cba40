extension ObservableType {
    /// Emits `false` and completes at the first value that fails `predicate` (unsubscribing
    /// from the source), or `true` when the source completes with every value passing: RxJS
    /// `every`, ReactiveCocoa `all:`. An error, or one thrown by `predicate`, passes at once.
    @inlinable
    public func every(_ predicate: @escaping (Element) throws -> Bool) -> Observable<Bool> {
        lift { observer in
            { event in
                switch event {
                case .next(let value):
                    do {
                        if try !predicate(value) {
                            observer.onNext(false)
                            observer.onCompleted()
                        }
                    } catch {
                        observer.onError(error)
                    }
                case .error(let error): observer.onError(error)
                case .completed:
                    observer.onNext(true)
                    observer.onCompleted()
                }
            }
        }
    }
}
