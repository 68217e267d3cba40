/// A subject that emits only its last value, and only when it completes, to every subscriber
/// (late ones included), then completion; an error is passed on without a value (RxJS and
/// RxSwift `AsyncSubject`).
public final class AsyncSubject<Element>: ObservableType, ObserverType, @unchecked Sendable {
    private let last = Locked<Element?>(nil)
    private let settled = ReplaySubject<Element>(bufferSize: 1)

    /// Creates a subject that has seen nothing.
    public init() {}

    public func on(_ event: Event<Element>) {
        switch event {
        case .next(let value): last.withLock { $0 = value }
        case .error: settled.on(event)
        case .completed:
            if let value = last.withLock({ $0 }) { settled.onNext(value) }
            settled.onCompleted()
        }
    }

    public func asObservable() -> Observable<Element> { settled.asObservable() }
}
