extension ObservableType {
    /// Pairs each value with its index, counting from 0 per subscription (RxSwift `enumerated`).
    @inlinable
    public func enumerated() -> Observable<(index: Int, element: Element)> {
        lift { observer in
            var index = 0
            return { event in
                switch event {
                case .next(let value):
                    observer.onNext((index, value))
                    index += 1
                case .error(let error): observer.onError(error)
                case .completed: observer.onCompleted()
                }
            }
        }
    }
}
