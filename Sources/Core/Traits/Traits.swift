/// An observable that succeeds with exactly one value or fails (RxSwift `Single`): a request,
/// a computation. Every operator of ``ObservableType`` applies (returning a plain
/// ``Observable``); ``asSingle()`` makes one from any observable and enforces the grammar.
///
/// ```swift
/// let user = Single<User>.create { done in
///     let task = api.fetch { done($0) }
///     return Disposables.create { task.cancel() }
/// }
/// user.subscribe(onSuccess: { show($0) }, onFailure: { report($0) })
/// ```
public struct Single<Element>: ObservableType {
    let source: Observable<Element>

    init(unchecked source: Observable<Element>) { self.source = source }

    public func asObservable() -> Observable<Element> { source }

    /// A single whose subscribe logic reports its result once; later results are ignored.
    public static func create(_ subscribe: @escaping (_ done: @escaping (Result<Element, any Error>) -> Void) -> any Disposable) -> Single {
        Single(
            unchecked: Observable.create { observer in
                subscribe { result in
                    switch result {
                    case .success(let value):
                        observer.onNext(value)
                        observer.onCompleted()
                    case .failure(let error): observer.onError(error)
                    }
                }
            })
    }

    /// Succeeds at once with `value`.
    public static func just(_ value: Element) -> Single { Single(unchecked: .just(value)) }

    /// Fails at once with `error`.
    public static func error(_ error: any Error) -> Single { Single(unchecked: .error(error)) }

    /// Subscribes result handlers; `onDisposed` runs once when the subscription ends.
    @discardableResult
    public func subscribe(
        onSuccess: ((Element) -> Void)? = nil, onFailure: ((any Error) -> Void)? = nil, onDisposed: (() -> Void)? = nil
    ) -> any Disposable {
        source.subscribe(onNext: onSuccess, onError: onFailure, onCompleted: nil, onDisposed: onDisposed)
    }

    /// Transforms the value, staying a single.
    public func map<Result>(_ transform: @escaping (Element) throws -> Result) -> Single<Result> {
        Single<Result>(unchecked: source.map(transform))
    }

    /// Chains another single on the value.
    public func flatMap<Result>(_ transform: @escaping (Element) throws -> Single<Result>) -> Single<Result> {
        Single<Result>(unchecked: source.flatMap(transform))
    }
}

extension Single where Element: Sendable {
    /// Waits for the value; throws the failure, or `CancellationError` when the task is cancelled.
    public var value: Element {
        get async throws { try await source.firstValue() }
    }
}

/// An observable that succeeds with at most one value, or fails (RxSwift `Maybe`).
public struct Maybe<Element>: ObservableType {
    let source: Observable<Element>

    init(unchecked source: Observable<Element>) { self.source = source }

    public func asObservable() -> Observable<Element> { source }

    /// Succeeds at once with `value`.
    public static func just(_ value: Element) -> Maybe { Maybe(unchecked: .just(value)) }

    /// Completes at once without a value.
    public static func empty() -> Maybe { Maybe(unchecked: .empty()) }

    /// Fails at once with `error`.
    public static func error(_ error: any Error) -> Maybe { Maybe(unchecked: .error(error)) }

    /// Subscribes handlers: a value, completion without one, or a failure; then `onDisposed`.
    @discardableResult
    public func subscribe(
        onSuccess: ((Element) -> Void)? = nil, onFailure: ((any Error) -> Void)? = nil, onCompleted: (() -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> any Disposable {
        var succeeded = false
        return source.subscribe(
            onNext: { value in
                succeeded = true
                onSuccess?(value)
            }, onError: onFailure, onCompleted: { if !succeeded { onCompleted?() } }, onDisposed: onDisposed)
    }
}

/// An observable that only completes or fails (RxSwift `Completable`): work whose result is
/// that it happened.
public struct Completable: ObservableType {
    let source: Observable<Never>

    init(unchecked source: Observable<Never>) { self.source = source }

    public func asObservable() -> Observable<Never> { source }

    /// Completes at once.
    public static func empty() -> Completable { Completable(unchecked: .empty()) }

    /// Fails at once with `error`.
    public static func error(_ error: any Error) -> Completable { Completable(unchecked: .error(error)) }

    /// Subscribes completion and failure handlers, then `onDisposed`.
    @discardableResult
    public func subscribe(
        onCompleted: (() -> Void)? = nil, onError: ((any Error) -> Void)? = nil, onDisposed: (() -> Void)? = nil
    ) -> any Disposable {
        source.subscribe(onNext: nil, onError: onError, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Continues with `next` once this completes (RxSwift `andThen`); a failure skips it.
    public func andThen<Next: ObservableType>(_ next: Next) -> Observable<Next.Element> {
        source.then { next }
    }
}

extension ObservableType {
    /// This observable as a ``Single``: its only value when it completes. No value fails with
    /// ``RxError/noElements``, a second value fails at once with ``RxError/moreThanOneElement``.
    public func asSingle() -> Single<Element> { Single(unchecked: single()) }

    /// This observable as a ``Maybe``: its value, if any, when it completes. A second value
    /// fails at once with ``RxError/moreThanOneElement``.
    public func asMaybe() -> Maybe<Element> {
        Maybe(
            unchecked: asObservable().lift { observer in
                var element: [Element] = []
                return { event in
                    switch event {
                    case .next(let value):
                        guard element.isEmpty else { return observer.onError(RxError.moreThanOneElement) }
                        element = [value]
                    case .error(let error): observer.onError(error)
                    case .completed:
                        if let value = element.first { observer.onNext(value) }
                        observer.onCompleted()
                    }
                }
            })
    }

    /// This observable as a ``Completable``: its values are ignored, its completion or error kept.
    public func asCompletable() -> Completable {
        Completable(unchecked: asObservable().compactMap { _ -> Never? in nil })
    }
}
