extension ObservableType {
    /// Passes the source through, but fails with `error` (default ``RxError/noElements``) when
    /// it completes without a value (RxJS `throwIfEmpty`).
    @inlinable
    public func throwIfEmpty(_ error: @autoclosure @escaping () -> any Error = RxError.noElements) -> Observable<Element> {
        lift { observer in
            let sawValue = SerialState(false)
            return { event in
                switch event {
                case .next:
                    sawValue.value = true
                    observer.on(event)
                case .error: observer.on(event)
                case .completed:
                    if sawValue.value { observer.onCompleted() } else { observer.onError(error()) }
                }
            }
        }
    }
}
