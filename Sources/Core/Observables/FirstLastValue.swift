extension ObservableType where Element: Sendable {
    /// Subscribes, waits for the first value and unsubscribes (RxJS `firstValueFrom`). A
    /// source that completes empty throws ``RxError/noElements``; its error is thrown; cancelling
    /// the waiting task unsubscribes and throws `CancellationError`.
    public func firstValue() async throws -> Element {
        try await awaitValue(endingAtFirst: true, default: nil)
    }

    /// The first value, or `defaultValue` when the source completes empty.
    public func firstValue(default defaultValue: Element) async throws -> Element {
        try await awaitValue(endingAtFirst: true, default: defaultValue)
    }

    /// Subscribes and waits for completion, returning the last value (RxJS `lastValueFrom`).
    /// A source that completes empty throws ``RxError/noElements``; its error is thrown;
    /// cancelling the waiting task unsubscribes and throws `CancellationError`.
    public func lastValue() async throws -> Element {
        try await awaitValue(endingAtFirst: false, default: nil)
    }

    /// The last value, or `defaultValue` when the source completes empty.
    public func lastValue(default defaultValue: Element) async throws -> Element {
        try await awaitValue(endingAtFirst: false, default: defaultValue)
    }

    private func awaitValue(endingAtFirst: Bool, default defaultValue: Element?) async throws -> Element {
        let source = asObservable()
        let waiter = ValueWaiter<Element>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard waiter.begin(continuation) else { return }
                var last = defaultValue
                let subscription = source.subscribe { event in
                    switch event {
                    case .next(let value):
                        if endingAtFirst { return waiter.finish(.success(value)) }
                        last = value
                    case .error(let error): waiter.finish(.failure(error))
                    case .completed: waiter.finish(last.map { .success($0) } ?? .failure(RxError.noElements))
                    }
                }
                waiter.attach(subscription)
            }
        } onCancel: {
            waiter.finish(.failure(CancellationError()))
        }
    }
}

/// One awaited value: resumes its continuation once, then ends the subscription.
private final class ValueWaiter<Element: Sendable>: @unchecked Sendable {
    private let lock = Lock()
    private var continuation: CheckedContinuation<Element, any Error>?
    private var subscription: (any Disposable)?
    private var outcome: Result<Element, any Error>?

    /// Installs the continuation; `false` when the outcome (a cancellation) came first and was delivered.
    func begin(_ continuation: CheckedContinuation<Element, any Error>) -> Bool {
        lock.lock()
        guard let outcome else {
            self.continuation = continuation
            lock.unlock()
            return true
        }
        lock.unlock()
        continuation.resume(with: outcome)
        return false
    }

    func finish(_ result: Result<Element, any Error>) {
        lock.lock()
        guard outcome == nil else { return lock.unlock() }
        outcome = result
        let continuation = self.continuation
        let subscription = self.subscription
        self.continuation = nil
        lock.unlock()
        subscription?.dispose()
        continuation?.resume(with: result)
    }

    func attach(_ subscription: any Disposable) {
        lock.lock()
        guard outcome != nil else {
            self.subscription = subscription
            return lock.unlock()
        }
        lock.unlock()
        subscription.dispose()
    }
}
