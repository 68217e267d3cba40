extension ObservableType {
    /// Emits the source's only value when it completes. Fails with
    /// ``RxError/moreThanOneElement`` at a second value (unsubscribing from the source), and
    /// with ``RxError/noElements`` at a completion without one (RxJS `single`).
    @inlinable
    public func single() -> Observable<Element> {
        lift { observer in
            let only = SerialState<Element?>(nil)
            return { event in
                switch event {
                case .next(let value):
                    if only.value != nil { return observer.onError(RxError.moreThanOneElement) }
                    only.value = value
                case .error(let error): observer.onError(error)
                case .completed:
                    guard let only = only.value else { return observer.onError(RxError.noElements) }
                    observer.onNext(only)
                    observer.onCompleted()
                }
            }
        }
    }

    /// Emits the only value for which `predicate` holds when the source completes (RxJS 7
    /// `single(predicate)`). Fails with ``RxError/moreThanOneElement`` at a second match
    /// (unsubscribing from the source), with ``RxError/noMatchingElement`` at a completion after
    /// values of which none matched, and with ``RxError/noElements`` when the source was empty.
    @inlinable
    public func single(where predicate: @escaping (Element) throws -> Bool) -> Observable<Element> {
        lift { observer in
            let state = SerialState((match: Element?.none, sawValue: false))
            return { event in
                switch event {
                case .next(let value):
                    state.value.sawValue = true
                    do {
                        guard try predicate(value) else { return }
                    } catch { return observer.onError(error) }
                    if state.value.match != nil { return observer.onError(RxError.moreThanOneElement) }
                    state.value.match = value
                case .error(let error): observer.onError(error)
                case .completed:
                    guard let match = state.value.match else {
                        return observer.onError(state.value.sawValue ? RxError.noMatchingElement : RxError.noElements)
                    }
                    observer.onNext(match)
                    observer.onCompleted()
                }
            }
        }
    }
}
