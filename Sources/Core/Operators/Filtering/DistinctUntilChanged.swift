extension ObservableType {
    /// Drops values equal (by `areEqual`) to the value before them.
    @inlinable
    public func distinctUntilChanged(_ areEqual: @escaping (Element, Element) throws -> Bool) -> Observable<Element> {
        lift { observer in
            let last = SerialState<Element?>(nil)
            return { event in
                switch event {
                case .next(let value):
                    do {
                        if let previous = last.value, try areEqual(previous, value) { return }
                        last.value = value
                        observer.onNext(value)
                    } catch { observer.onError(error) }
                case .error, .completed: observer.on(event)
                }
            }
        }
    }

    /// Drops values whose key equals the key of the value before them.
    @inlinable
    public func distinctUntilChanged<Key: Equatable>(by key: @escaping (Element) throws -> Key) -> Observable<Element> {
        distinctUntilChanged { try key($0) == key($1) }
    }
}

extension ObservableType where Element: Equatable {
    /// Drops values equal to the value before them.
    @inlinable
    public func distinctUntilChanged() -> Observable<Element> { distinctUntilChanged(==) }
}
