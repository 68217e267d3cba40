extension ObservableType {
    /// Emits each value whose `key` has not been seen before in this subscription (RxJS
    /// `distinct`); the keys seen are kept until the stream ends, or cleared whenever `flushes`
    /// emits.
    @inlinable
    public func distinct<Key: Hashable, Flushes: ObservableType>(
        by key: @escaping (Element) throws -> Key, flushes: Flushes
    ) -> Observable<Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            let seen = SerialState(Set<Key>())
            resources.insert(flushes.subscribe { event in if case .next = event { gate.locked { seen.value.removeAll() } } })
            resources.insert(
                source.subscribe { event in
                    guard case .next(let value) = event else { return gate.send(event) }
                    do {
                        let k = try key(value)
                        gate.locked { if seen.value.insert(k).inserted { gate.emit(.next(value)) } }
                    } catch {
                        gate.send(.error(error))
                    }
                })
        }
    }

    /// ``distinct(by:flushes:)`` without flushing.
    @inlinable
    public func distinct<Key: Hashable>(by key: @escaping (Element) throws -> Key) -> Observable<Element> {
        distinct(by: key, flushes: Observable<Never>.never())
    }
}

extension ObservableType where Element: Hashable {
    /// Emits each value not seen before in this subscription (RxJS `distinct`).
    @inlinable
    public func distinct() -> Observable<Element> { distinct(by: { $0 }) }
}
