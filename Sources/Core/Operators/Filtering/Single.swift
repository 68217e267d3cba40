extension ObservableType {
    /// Emits the source's only value when it completes. Fails with
    /// ``RxError/moreThanOneElement`` at a second value (unsubscribing from the source), and
    /// with ``RxError/noElements`` at a completion without one (RxJS `single`).
    @inlinable
    public func single() -> Observable<Element> {
        lift { observer in
            let only = SerialState<Element?>(nil)
            return { event in
                switch event {
                case .next(let value):
                    if only.value != nil { return observer.onError(RxError.moreThanOneElement) }
                    only.value = value
                case .error(let error): observer.onError(error)
                case .completed:
                    guard let only = only.value else { return observer.onError(RxError.noElements) }
                    observer.onNext(only)
                    observer.onCompleted()
                }
            }
        }
    }
}
