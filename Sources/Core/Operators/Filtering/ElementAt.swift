extension ObservableType {
    /// Emits the value at `index` and completes; errors with ``RxError/argumentOutOfRange``
    /// when the source completes earlier, unless a `defaultValue` is given.
    @inlinable
    public func elementAt(_ index: Int, defaultValue: Element? = nil) -> Observable<Element> {
        precondition(index >= 0, "elementAt needs a non-negative index")
        return lift { observer in
            let remaining = SerialState(index)
            return { event in
                switch event {
                case .next(let value):
                    if remaining.value == 0 {
                        observer.onNext(value)
                        observer.onCompleted()
                    }
                    remaining.value -= 1
                case .error: observer.on(event)
                case .completed:
                    if let defaultValue {
                        observer.onNext(defaultValue)
                        observer.onCompleted()
                    } else {
                        observer.onError(RxError.argumentOutOfRange)
                    }
                }
            }
        }
    }

    /// RxSwift 6's spelling of ``elementAt(_:defaultValue:)``.
    @inlinable
    public func element(at index: Int, defaultValue: Element? = nil) -> Observable<Element> {
        elementAt(index, defaultValue: defaultValue)
    }
}
