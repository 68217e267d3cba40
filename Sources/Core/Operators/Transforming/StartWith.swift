extension ObservableType {
    /// Emits `elements` synchronously on subscription, then the source's events.
    @inlinable
    public func startWith(_ elements: Element...) -> Observable<Element> {
        Observable.from(elements).concat(asObservable())
    }
}
