extension ObservableType {
    /// Emits each value paired with the previous one; the first value only pairs with the second.
    @inlinable
    public func pairwise() -> Observable<(Element, Element)> {
        lift { observer in
            let previous = SerialState<Element?>(nil)
            return { event in
                switch event {
                case .next(let value):
                    if let last = previous.value { observer.onNext((last, value)) }
                    previous.value = value
                case .error(let error): observer.onError(error)
                case .completed: observer.onCompleted()
                }
            }
        }
    }
}
