extension Observable {
    /// Emits `initialState`, then each state `iterate` makes from the previous one, while
    /// `condition` holds, then completes: a `for` loop as a stream (RxSwift `generate`). All
    /// synchronously at subscription; unsubscribing from inside stops the loop. An error thrown
    /// by `condition` or `iterate` ends the stream.
    public static func generate(
        initialState: Element, condition: @escaping (Element) throws -> Bool, iterate: @escaping (Element) throws -> Element
    ) -> Observable<Element> {
        Observable { observer in
            var state = initialState
            do {
                while try condition(state) {
                    // A condition that always holds ends at a virtual-time driver's step limit.
                    if observer.isDisposed || !RunawayGuard.spend("generate") { return }
                    observer.onNext(state)
                    state = try iterate(state)
                }
                observer.onCompleted()
            } catch {
                observer.onError(error)
            }
        }
    }
}
