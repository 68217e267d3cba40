extension ObservableType {
    /// Emits `elements` after the source completes, then completes, all in the completion's
    /// frame (RxJS `endWith`). An error passes at once, without them.
    @inlinable
    public func endWith(_ elements: Element...) -> Observable<Element> {
        lift { observer in
            { event in
                if case .completed = event {
                    for element in elements { observer.onNext(element) }
                }
                observer.on(event)
            }
        }
    }
}
