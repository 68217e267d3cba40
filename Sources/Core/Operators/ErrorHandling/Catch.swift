extension ObservableType {
    /// On error, continues with the observable `handler` returns for it; an error thrown by
    /// `handler` is forwarded.
    @inlinable
    public func `catch`<Other: ObservableType>(_ handler: @escaping (any Error) throws -> Other) -> Observable<Element>
    where Other.Element == Element {
        let source = asObservable()
        return Observable { downstream in
            let slot = SerialDisposable()
            downstream.setUpstream(slot)
            slot.set(
                source.subscribe { event in
                    guard case .error(let error) = event else { return downstream.on(event) }
                    do {
                        let next = try handler(error).asObservable()
                        slot.set(next.subscribe(downstream.on))
                    } catch {
                        downstream.onError(error)
                    }
                })
        }
    }

    /// On error, emits `element` and completes.
    @inlinable
    public func catchAndReturn(_ element: Element) -> Observable<Element> {
        self.catch { _ in Observable.just(element) }
    }
}
