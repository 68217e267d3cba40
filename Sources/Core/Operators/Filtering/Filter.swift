extension ObservableType {
    /// Passes the values for which `predicate` holds; a thrown error ends the stream.
    @inlinable
    public func filter(_ predicate: @escaping (Element) throws -> Bool) -> Observable<Element> {
        asObservable().filter(predicate)
    }
}

extension Observable {
    /// Passes the values for which `predicate` holds; a thrown error ends the stream.
    @inlinable
    public func filter(_ predicate: @escaping (Element) throws -> Bool) -> Observable<Element> {
        lift { observer in
            { event in
                switch event {
                case .next(let value):
                    do { if try predicate(value) { observer.onNext(value) } } catch { observer.onError(error) }
                case .error, .completed: observer.on(event)
                }
            }
        }
    }
}
