extension ObservableType {
    /// Pairs each value with its index, counting from 0 per subscription (RxSwift `enumerated`).
    @inlinable
    public func enumerated() -> Observable<(index: Int, element: Element)> {
        lift { observer in
            let index = SerialState(0)
            return { event in
                switch event {
                case .next(let value):
                    observer.onNext((index.value, value))
                    index.value += 1
                case .error(let error): observer.onError(error)
                case .completed: observer.onCompleted()
                }
            }
        }
    }
}
