extension ObservableType {
    /// Emits `true` and completes at the first value that satisfies `predicate`, unsubscribing
    /// from the source; emits `false` when the source completes without one (ReactiveCocoa
    /// `any:`; its `all:` is ``every(_:)``). An error, including one thrown by `predicate`,
    /// passes at once.
    @inlinable
    public func contains(where predicate: @escaping (Element) throws -> Bool) -> Observable<Bool> {
        asObservable().every { try !predicate($0) }.map { !$0 }
    }
}

extension ObservableType where Element: Equatable {
    /// Emits `true` at the first value equal to `element`, `false` if the source completes without one.
    @inlinable
    public func contains(_ element: Element) -> Observable<Bool> {
        contains { $0 == element }
    }
}
