extension ObservableType {
    /// Emits `false` and completes at the first value (unsubscribing from the source), or
    /// `true` when the source completes without one (RxJS `isEmpty`).
    @inlinable
    public func isEmpty() -> Observable<Bool> {
        lift { observer in
            { event in
                switch event {
                case .next:
                    observer.onNext(false)
                    observer.onCompleted()
                case .error(let error): observer.onError(error)
                case .completed:
                    observer.onNext(true)
                    observer.onCompleted()
                }
            }
        }
    }
}
