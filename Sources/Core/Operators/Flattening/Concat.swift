extension ObservableType where Element: ObservableType {
    /// Subscribes to the inner observables one after another.
    @inlinable
    public func concat() -> Observable<Element.Element> {
        flatMap(maxConcurrent: 1) { $0 }
    }
}

extension Observable {
    /// Subscribes to `sources` one after another.
    @inlinable
    public static func concat<S: ObservableType>(_ sources: S...) -> Observable<Element> where S.Element == Element {
        concat(sources)
    }

    /// Subscribes to `sources` one after another.
    @inlinable
    public static func concat<S: ObservableType>(_ sources: [S]) -> Observable<Element> where S.Element == Element {
        Observable<S>.from(sources).concat()
    }
}

extension ObservableType {
    /// Continues with `next` after this stream completes.
    @inlinable
    public func concat<S: ObservableType>(_ next: S) -> Observable<Element> where S.Element == Element {
        Observable.concat([asObservable(), next.asObservable()])
    }
}
