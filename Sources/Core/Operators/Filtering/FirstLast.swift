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

    /// Emits the first value for which `predicate` holds and completes; when the source
    /// completes without one, emits `defaultValue` and completes (RxJS 7
    /// `first(predicate, defaultValue)`).
    @inlinable
    public func first(where predicate: @escaping (Element) throws -> Bool, default defaultValue: Element) -> Observable<Element> {
        firstMatch(predicate, found: { value, _ in value }, missing: { defaultValue })
    }

    /// Emits the first value for which `predicate` holds, or `nil` when the source completes
    /// without one, then completes (RxJS `find`).
    @inlinable
    public func find(where predicate: @escaping (Element) throws -> Bool) -> Observable<Element?> {
        firstMatch(predicate, found: { value, _ in value }, missing: { nil })
    }

    /// Emits the index of the first value for which `predicate` holds, or -1 when the source
    /// completes without one, then completes (RxJS `findIndex`).
    @inlinable
    public func firstIndex(where predicate: @escaping (Element) throws -> Bool) -> Observable<Int> {
        firstMatch(predicate, found: { _, index in index }, missing: { -1 })
    }

    /// The first value matching `predicate` (and its index) as `found` makes it, or `missing()`
    /// at a completion without one; unsubscribes from the source at the match.
    @usableFromInline
    func firstMatch<Result>(
        _ predicate: @escaping (Element) throws -> Bool, found: @escaping (Element, Int) -> Result, missing: @escaping () -> Result
    ) -> Observable<Result> {
        lift { observer in
            let index = SerialState(0)
            return { event in
                switch event {
                case .next(let value):
                    do {
                        if try predicate(value) {
                            observer.onNext(found(value, index.value))
                            observer.onCompleted()
                        }
                        index.value += 1
                    } catch { observer.onError(error) }
                case .error(let error): observer.onError(error)
                case .completed:
                    observer.onNext(missing())
                    observer.onCompleted()
                }
            }
        }
    }
}
