/// An observable that shares one subscription to its source among all its subscribers, from
/// `connect()` until that connection is disposed.
public final class ConnectableObservable<Element>: ObservableType, @unchecked Sendable {
    private let source: Observable<Element>
    private let makeSubject: () -> any SubjectType<Element>
    private let resetsSubject: Bool
    private let lock = Lock()
    private var subject: (any SubjectType<Element>)?
    private var connection: SingleAssignmentDisposable?
    /// A kept subject whose source has ended: it replays its end, so reconnecting is pointless.
    private var keptSubjectEnded = false

    init(source: Observable<Element>, resetsSubject: Bool, makeSubject: @escaping () -> any SubjectType<Element>) {
        self.source = source
        self.resetsSubject = resetsSubject
        self.makeSubject = makeSubject
    }

    private func currentSubject() -> any SubjectType<Element> {
        lock.withLock {
            if let subject { return subject }
            let fresh = makeSubject()
            subject = fresh
            return fresh
        }
    }

    public func asObservable() -> Observable<Element> {
        Observable.deferred { [self] in currentSubject().asObservable() }
    }

    /// Subscribes the shared subject to the source; disposing the result (or the source
    /// terminating) ends the connection. With a subject factory the next `connect()` starts
    /// over with a fresh subject; with a fixed subject it reconnects that subject. Connecting
    /// twice returns the same connection.
    @discardableResult
    public func connect() -> any Disposable {
        let connectionState: (SingleAssignmentDisposable, Bool, any SubjectType<Element>)? = lock.withLock {
            if keptSubjectEnded { return nil }
            if let existing = self.connection, let shared = self.subject { return (existing, false, shared) }
            let fresh = SingleAssignmentDisposable()
            self.connection = fresh
            let shared = self.subject ?? makeSubject()
            self.subject = shared
            return (fresh, true, shared)
        }
        guard let (connection, isNew, subject) = connectionState else { return Disposables.create() }
        guard isNew else { return connection }
        // A terminated or disposed connection resets, so the next subscriber starts over
        // (RxSwift's `.whileConnected`, RxJS `share()`'s resets).
        let reset = { [self] in
            lock.withLock {
                if self.connection === connection {
                    self.connection = nil
                    if resetsSubject { self.subject = nil }
                }
            }
        }
        connection.set(
            source.subscribe { event in
                if event.isTerminal {
                    if !self.resetsSubject { self.lock.withLock { self.keptSubjectEnded = true } }
                    reset()
                }
                subject.on(event)
            })
        return AnonymousDisposable {
            reset()
            connection.dispose()
        }
    }

    private var isConnected: Bool { lock.withLock { connection != nil } }

    /// Connects when the first subscriber arrives and stays connected, whoever leaves (RxJava
    /// `autoConnect`; with a replaying subject, ReactiveCocoa's `replayLazily`). The connection
    /// ends only when the source terminates.
    public func autoconnect() -> Observable<Element> {
        let shared = asObservable()
        return Observable.create { [self] observer in
            let subscription = shared.subscribe(observer.on)
            self.connect()
            return subscription
        }
    }

    /// Connects when the first subscriber arrives and disconnects when the last one leaves.
    public func refCount() -> Observable<Element> {
        let lock = Lock()
        var count = 0
        var connection: (any Disposable)?
        return Observable { [self] downstream in
            let subscription = asObservable().subscribe(downstream.on)
            let first: Bool = lock.withLock {
                count += 1
                return count == 1
            }
            // A subscriber may arrive after the source terminated but before the earlier
            // subscribers left (from a completion handler, or on another thread): with a
            // resetting subject it waits on a fresh subject, so it must connect it itself.
            let shouldConnect = first || (resetsSubject && !isConnected)
            downstream.setUpstream(
                AnonymousDisposable {
                    subscription.dispose()
                    let toDispose: (any Disposable)? = lock.withLock {
                        count -= 1
                        guard count == 0 else { return nil }
                        defer { connection = nil }
                        return connection
                    }
                    toDispose?.dispose()
                })
            if shouldConnect {
                let connected = connect()
                let stale: Bool = lock.withLock {
                    if count == 0 { return true }
                    connection = connected
                    return false
                }
                if stale { connected.dispose() }
            }
        }
    }
}

/// A subject: an observer whose events its subscribers receive.
public protocol SubjectType<Element>: ObservableType, ObserverType {}

extension PublishSubject: SubjectType {}
extension BehaviorSubject: SubjectType {}
extension ReplaySubject: SubjectType {}

extension ObservableType {
    /// Shares one subscription through subjects that `makeSubject` creates per connection.
    public func multicast(_ makeSubject: @escaping () -> any SubjectType<Element>) -> ConnectableObservable<Element> {
        ConnectableObservable(source: asObservable(), resetsSubject: true, makeSubject: makeSubject)
    }

    /// Shares one subscription through `subject`, which is kept across connections (so a
    /// ``ReplaySubject`` keeps replaying after the source ended).
    public func multicast<Subject: SubjectType>(_ subject: Subject) -> ConnectableObservable<Element> where Subject.Element == Element {
        ConnectableObservable(source: asObservable(), resetsSubject: false) { subject }
    }

    /// Shares one subscription through one ``PublishSubject``, from `connect()` on.
    public func publish() -> ConnectableObservable<Element> {
        multicast(PublishSubject())
    }

    /// Shares one subscription among all current subscribers, replaying the latest `replay`
    /// values to late ones; the source is subscribed with the first subscriber and released
    /// with the last, and a later subscriber starts a fresh connection.
    public func share(replay: Int = 0) -> Observable<Element> {
        share(replay: replay, scope: .whileConnected)
    }

    /// ``share(replay:)`` with the subject's lifetime chosen (RxSwift `share(replay:scope:)`):
    /// `.whileConnected` starts afresh after the source ends or everyone left; `.forever` keeps
    /// one subject, so a subscriber arriving after the source ended gets its replay and its
    /// terminal event, and the source is not subscribed again.
    public func share(replay: Int, scope: SubjectLifetimeScope) -> Observable<Element> {
        let make = { () -> any SubjectType<Element> in
            replay == 0 ? PublishSubject<Element>() : ReplaySubject<Element>(bufferSize: replay)
        }
        switch scope {
        case .whileConnected: return multicast(make).refCount()
        case .forever: return ConnectableObservable(source: asObservable(), resetsSubject: false, makeSubject: make).refCount()
        }
    }
}

/// How long ``ObservableType/share(replay:scope:)`` keeps its subject.
public enum SubjectLifetimeScope: Sendable {
    /// A new subject for every connection (RxSwift's default).
    case whileConnected
    /// One subject for the observable's whole life.
    case forever
}
