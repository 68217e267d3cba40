/// A type that can be viewed as an ``Observable``: observables themselves, subjects, test
/// observables. Every operator is available on every conforming type.
public protocol ObservableType<Element> {
    /// The type of the values emitted.
    associatedtype Element
    /// This stream as a plain observable.
    func asObservable() -> Observable<Element>
    /// Runs this stream's subscribe logic for `observer`, which is then the subscription (an
    /// implementation hook: operators subscribe inner observables through it, so that a type
    /// which is not an ``Observable`` need not make one per subscription). The default runs
    /// ``asObservable()``'s.
    func _run(_ observer: Observer<Element>)
}

extension ObservableType {
    /// Runs ``asObservable()``'s subscribe logic for `observer`.
    @inlinable
    public func _run(_ observer: Observer<Element>) { asObservable().run(observer) }
}

/// A push-based stream of values that ends with at most one error or completion.
///
/// Observables are cold unless documented otherwise: each subscription runs the subscribe
/// logic anew. They are immutable and may be shared between threads; the closures passed to
/// operators run on whatever thread delivers events (see ``ObservableType/observe(on:)``).
///
/// ```swift
/// let subscription = Observable.from([1, 2, 3])
///     .map { $0 * 10 }
///     .subscribe(onNext: { print($0) })
/// ```
public final class Observable<Element>: ObservableType, @unchecked Sendable {
    // Immutable after init. The producer links the resources it creates into the observer
    // (`setUpstream`) *before* producing, so that a synchronous producer sees a dispose that
    // happens downstream while it is still inside `subscribe`.
    @usableFromInline let producer: (Observer<Element>) -> Void

    /// An observable from a producer that links its resources into the observer itself
    /// (`setUpstream`) before producing (for this package's own sources).
    @inlinable
    package init(producer: @escaping (Observer<Element>) -> Void) {
        self.producer = producer
    }

    public func asObservable() -> Observable<Element> { self }

    /// Runs this observable's subscribe logic for `observer`.
    @inlinable
    public func _run(_ observer: Observer<Element>) { producer(observer) }

    /// Subscribes a closure; the returned disposable ends the subscription.
    @inlinable @discardableResult
    public func subscribe(_ handler: @escaping (Event<Element>) -> Void) -> any Disposable {
        let observer = Observer(handler)
        producer(observer)
        return observer
    }

    /// Subscribes with a handler and links the subscription into `downstream` before the
    /// producer runs, so that disposing downstream reaches the producer even during a
    /// synchronous `subscribe`.
    @inlinable
    func subscribe<D>(linkingInto downstream: Observer<D>, _ handler: @escaping (Event<Element>) -> Void) {
        let observer = Observer(handler)
        downstream.setUpstream(observer)
        producer(observer)
    }

    /// Runs the subscribe logic for an observer the caller made (which is then the
    /// subscription: disposing it ends it).
    @inlinable
    package func run(_ observer: Observer<Element>) { producer(observer) }
}

extension ObservableType {
    /// Subscribes an event handler.
    @inlinable @discardableResult
    public func subscribe(_ handler: @escaping (Event<Element>) -> Void) -> any Disposable {
        asObservable().subscribe(handler)
    }

    /// Subscribes an observer.
    @discardableResult
    public func subscribe<O: ObserverType>(_ observer: O) -> any Disposable where O.Element == Element {
        asObservable().subscribe(observer.on)
    }

    /// Subscribes per-kind handlers; `onDisposed` runs once when the subscription ends for any
    /// reason (terminal event or dispose).
    @inlinable @discardableResult
    public func subscribe(
        onNext: ((Element) -> Void)? = nil,
        onError: ((any Error) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> any Disposable {
        asObservable().subscribe(onNext: onNext, onError: onError, onCompleted: onCompleted, onDisposed: onDisposed)
    }
}

extension Observable {
    /// Subscribes per-kind handlers; `onDisposed` runs once when the subscription ends for any
    /// reason (terminal event or dispose).
    @inlinable @discardableResult
    public func subscribe(
        onNext: ((Element) -> Void)? = nil,
        onError: ((any Error) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> any Disposable {
        let observable = onDisposed.map { self.do(onDispose: $0) } ?? self
        return observable.subscribe { event in
            switch event {
            case .next(let value): onNext?(value)
            case .error(let error): onError?(error)
            case .completed: onCompleted?()
            }
        }
    }
}

extension Observable {
    /// Creates an observable from subscribe logic.
    ///
    /// The closure runs once per subscription; it sends events to the observer and returns the
    /// resources to release when the subscription ends. Events after a terminal event are
    /// ignored, and the returned disposable is disposed after a terminal event or on dispose.
    ///
    /// ```swift
    /// let numbers = Observable<Int>.create { observer in
    ///     observer.onNext(1)
    ///     observer.onCompleted()
    ///     return Disposables.create()
    /// }
    /// ```
    public static func create(_ subscribe: @escaping (Observer<Element>) -> any Disposable) -> Observable<Element> {
        Observable { observer in
            let resources = SingleAssignmentDisposable()
            observer.setUpstream(resources)
            resources.set(subscribe(observer))
        }
    }

    /// An observable whose subscribe logic gets a `CompositeDisposable` that is already linked
    /// into the subscription.
    @inlinable
    static func composite(_ body: @escaping (Observer<Element>, CompositeDisposable) -> Void) -> Observable<Element> {
        Observable { observer in
            let resources = CompositeDisposable()
            observer.setUpstream(resources)
            body(observer, resources)
        }
    }
}

extension ObservableType {
    /// A single-source operator: `makeHandler` gets the downstream observer and returns the
    /// handler for upstream events. The upstream subscription is linked before it starts.
    @inlinable
    func lift<Result>(_ makeHandler: @escaping (Observer<Result>) -> (Event<Element>) -> Void) -> Observable<Result> {
        asObservable().lift(makeHandler)
    }
}

extension Observable {
    // Defined on the concrete class as well: in a protocol extension the generic `Self` keeps
    // per-event code from being fully specialized.
    @inlinable
    func lift<Result>(_ makeHandler: @escaping (Observer<Result>) -> (Event<Element>) -> Void) -> Observable<Result> {
        Observable<Result> { [self] downstream in
            subscribe(linkingInto: downstream, makeHandler(downstream))
        }
    }
}
