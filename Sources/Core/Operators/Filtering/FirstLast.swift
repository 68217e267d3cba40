extension ObservableType {
    /// Emits the first value (for which `predicate` holds) and completes; errors with
    /// ``RxError/noElements`` when the source completes first (RxJS 7 `first`).
    @inlinable
    public func first(where predicate: @escaping (Element) throws -> Bool = { _ in true }) -> Observable<Element> {
        lift { observer in
            { event in
                switch event {
                case .next(let value):
                    do {
                        if try predicate(value) {
                            observer.onNext(value)
                            observer.onCompleted()
                        }
                    } catch { observer.onError(error) }
                case .error: observer.on(event)
                case .completed: observer.onError(RxError.noElements)
                }
            }
        }
    }

    /// Emits the last value (for which `predicate` holds) when the source completes; errors
    /// with ``RxError/noElements`` when there is none (RxJS 7 `last`).
    @inlinable
    public func last(where predicate: @escaping (Element) throws -> Bool = { _ in true }) -> Observable<Element> {
        lift { observer in
            let last = SerialState<Element?>(nil)
            return { event in
                switch event {
                case .next(let value):
                    do { if try predicate(value) { last.value = value } } catch { observer.onError(error) }
                case .error: observer.on(event)
                case .completed:
                    if let last = last.value {
                        observer.onNext(last)
                        observer.onCompleted()
                    } else {
                        observer.onError(RxError.noElements)
                    }
                }
            }
        }
    }
}
