import Foundation

/// Blocking access to an observable, for scripts and tests; every call gives up with
/// ``RxError/blockingTimeout(_:)`` instead of waiting forever.
///
/// ```swift
/// let values = try Observable.from([1, 2, 3]).blocking(timeout: .seconds(1)).toArray()
/// ```
///
/// Do not block the thread the source delivers on (for example the main queue when the source
/// observes on it): the call would time out.
public struct BlockingObservable<Element> {
    let source: Observable<Element>
    let timeout: Duration

    /// Waits for the first value; `nil` when the source completes empty.
    public func first() throws -> Element? {
        try collect(stopAfterFirst: true).first
    }

    /// Waits for completion and returns the last value; `nil` when there was none.
    public func last() throws -> Element? {
        try collect(stopAfterFirst: false).last
    }

    /// Waits for completion and returns every value.
    public func toArray() throws -> [Element] {
        try collect(stopAfterFirst: false)
    }

    /// Waits for completion, discarding values; rethrows the source's error.
    public func waitUntilCompleted() throws {
        _ = try source.ignoreElements().blocking(timeout: timeout).toArray()
    }

    private func collect(stopAfterFirst: Bool) throws -> [Element] {
        let done = DispatchSemaphore(value: 0)
        let lock = Lock()
        var values: [Element] = []
        var failure: (any Error)?
        let subscription = source.subscribe { event in
            let finished: Bool = lock.withLock {
                switch event {
                case .next(let value):
                    values.append(value)
                    return stopAfterFirst
                case .error(let error):
                    failure = error
                    return true
                case .completed:
                    return true
                }
            }
            if finished { done.signal() }
        }
        let result = done.wait(timeout: dispatchDeadline(after: timeout))
        subscription.dispose()
        if result == .timedOut { throw RxError.blockingTimeout(timeout) }
        return try lock.withLock {
            if let failure { throw failure }
            return values
        }
    }
}

extension ObservableType {
    /// Blocking helpers that give up after `timeout`.
    public func blocking(timeout: Duration) -> BlockingObservable<Element> {
        BlockingObservable(source: asObservable(), timeout: timeout)
    }

    /// Writes each value to `keyPath` of `object` (held weakly); `nil` values of an optional
    /// property are written as given. Errors end the binding (RAC's `setKeyPath:onObject:`).
    ///
    /// - Returns: the subscription; dispose it to stop writing.
    @discardableResult
    public func bind<Root: AnyObject>(to object: Root, keyPath: ReferenceWritableKeyPath<Root, Element>) -> any Disposable {
        subscribe { [weak object] event in
            if case .next(let value) = event { object?[keyPath: keyPath] = value }
        }
    }

    /// Writes each value to an optional property, and `nilValue` for `nil` (RAC's `nilValue:`).
    @discardableResult
    public func bind<Root: AnyObject, Value>(
        to object: Root, keyPath: ReferenceWritableKeyPath<Root, Value>, nilValue: Value
    ) -> any Disposable where Element == Value? {
        subscribe { [weak object] event in
            if case .next(let value) = event { object?[keyPath: keyPath] = value ?? nilValue }
        }
    }
}
