extension ObservableType {
    /// Emits each value paired with the previous one; the first value only pairs with the second.
    @inlinable
    public func pairwise() -> Observable<(Element, Element)> {
        lift { observer in
            var previous: Element?
            return { event in
                switch event {
                case .next(let value):
                    if let previous { observer.onNext((previous, value)) }
                    previous = value
                case .error(let error): observer.onError(error)
                case .completed: observer.onCompleted()
                }
            }
        }
    }
}
