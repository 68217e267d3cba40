extension ObservableType {
    /// Emits `defaultValue` when the source completes without a value.
    @inlinable
    public func ifEmpty(default defaultValue: Element) -> Observable<Element> {
        lift { observer in
            let empty = SerialState(true)
            return { event in
                switch event {
                case .next: empty.value = false
                case .completed: if empty.value { observer.onNext(defaultValue) }
                case .error: break
                }
                observer.on(event)
            }
        }
    }
}
