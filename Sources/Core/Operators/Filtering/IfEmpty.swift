extension ObservableType {
    /// Emits `defaultValue` when the source completes without a value.
    @inlinable
    public func ifEmpty(default defaultValue: Element) -> Observable<Element> {
        lift { observer in
            var empty = true
            return { event in
                switch event {
                case .next: empty = false
                case .completed: if empty { observer.onNext(defaultValue) }
                case .error: break
                }
                observer.on(event)
            }
        }
    }
}
