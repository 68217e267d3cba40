extension ObservableType where Element: ObservableType {
    /// Merges the inner observables, at most `maxConcurrent` at once (0 or `.max`: unlimited).
    @inlinable
    public func merge(maxConcurrent: Int = .max) -> Observable<Element.Element> {
        flatMap(maxConcurrent: maxConcurrent) { $0 }
    }
}

extension Observable {
    /// Merges the values of all `sources`; completes when all have completed.
    @inlinable
    public static func merge<S: ObservableType>(_ sources: S...) -> Observable<Element> where S.Element == Element {
        merge(sources)
    }

    /// Merges the values of all `sources`, at most `maxConcurrent` subscribed at once.
    @inlinable
    public static func merge<S: ObservableType>(_ sources: [S], maxConcurrent: Int = .max) -> Observable<Element>
    where S.Element == Element {
        Observable<S>.from(sources).merge(maxConcurrent: maxConcurrent)
    }
}

extension ObservableType {
    /// Merges this stream with `others`.
    @inlinable
    public func merge<S: ObservableType>(with others: S...) -> Observable<Element> where S.Element == Element {
        Observable.merge([asObservable()] + others.map { $0.asObservable() })
    }
}
