extension Observable {
    /// Emits the elements of an `AsyncSequence`, iterated in a task started on subscription;
    /// disposing cancels the task. A thrown error becomes the stream's error.
    public static func from<S: AsyncSequence & Sendable>(async sequence: S) -> Observable<Element>
    where S.Element == Element, Element: Sendable {
        Observable { observer in
            let sink = UncheckedSendable(observer)
            let task = Task {
                do {
                    for try await element in sequence {
                        if Task.isCancelled { return }
                        sink.value.onNext(element)
                    }
                    sink.value.onCompleted()
                } catch {
                    sink.value.onError(error)
                }
            }
            observer.setUpstream(AnonymousDisposable { task.cancel() })
        }
    }
}

extension ObservableType where Element: Sendable {
    /// The stream as an `AsyncThrowingStream`; the subscription starts when the stream is
    /// created and ends when iteration ends or is cancelled. Values are buffered without limit.
    // Inlinable: specialized for the caller's observable, its subscription runs specialized
    // code instead of looking generic metadata up on every event.
    @inlinable
    public var values: AsyncThrowingStream<Element, any Error> {
        let source = asObservable()
        return AsyncThrowingStream { continuation in
            let subscription = source.subscribe { event in
                switch event {
                case .next(let value): continuation.yield(value)
                case .error(let error): continuation.finish(throwing: error)
                case .completed: continuation.finish()
                }
            }
            let boxed = UncheckedSendable(subscription)
            continuation.onTermination = { _ in boxed.value.dispose() }
        }
    }
}
