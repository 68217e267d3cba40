extension ObservableType {
    /// Shares one subscription to the source among all current subscribers, with RxJS 7
    /// `share({ resetOnError, resetOnComplete, resetOnRefCountZero })`'s choices of when to start
    /// over:
    ///
    /// - `resetOnError` / `resetOnComplete`: when the source fails / completes, the next
    ///   subscriber subscribes to the source again (`true`), or gets that terminal event at once
    ///   without a new subscription (`false`).
    /// - `resetOnRefCountZero`: when the last subscriber leaves, the source is unsubscribed and the
    ///   next subscriber starts over (`true`), or the source stays subscribed and later
    ///   subscribers join it (`false`).
    ///
    /// With every option `true` (the defaults) this is ``share(replay:)`` with no replay.
    public func share(resetOnError: Bool = true, resetOnComplete: Bool = true, resetOnRefCountZero: Bool = true) -> Observable<Element> {
        let shared = ResettableShare(
            source: asObservable(), resetOnError: resetOnError, resetOnComplete: resetOnComplete,
            resetOnRefCountZero: resetOnRefCountZero)
        return Observable { downstream in shared.subscribe(downstream) }
    }
}

/// The state of `share(resetOnError:resetOnComplete:resetOnRefCountZero:)`: one subject and one
/// source connection at a time, guarded by `lock`; subscribers and the source call in from any thread.
final class ResettableShare<Element>: @unchecked Sendable {
    private let source: Observable<Element>
    private let resetOnError: Bool
    private let resetOnComplete: Bool
    private let resetOnRefCountZero: Bool
    private let lock = Lock()
    private var subject: PublishSubject<Element>?
    private var connection: SingleAssignmentDisposable?
    private var subscribers = 0
    /// The source ended and the subject was kept: it replays the end, nothing reconnects.
    private var ended = false

    init(source: Observable<Element>, resetOnError: Bool, resetOnComplete: Bool, resetOnRefCountZero: Bool) {
        self.source = source
        self.resetOnError = resetOnError
        self.resetOnComplete = resetOnComplete
        self.resetOnRefCountZero = resetOnRefCountZero
    }

    func subscribe(_ downstream: Observer<Element>) {
        let (subject, connect): (PublishSubject<Element>, SingleAssignmentDisposable?) = lock.withLock {
            subscribers += 1
            let subject = self.subject ?? PublishSubject<Element>()
            self.subject = subject
            guard connection == nil, !ended else { return (subject, nil) }
            let fresh = SingleAssignmentDisposable()
            connection = fresh
            return (subject, fresh)
        }
        let subscription = subject.subscribe(downstream.on)
        downstream.setUpstream(
            AnonymousDisposable { [self] in
                subscription.dispose()
                let toDispose: SingleAssignmentDisposable? = lock.withLock {
                    subscribers -= 1
                    guard subscribers == 0, resetOnRefCountZero, !ended, let connection else { return nil }
                    self.connection = nil
                    self.subject = nil
                    return connection
                }
                toDispose?.dispose()
            })
        guard let connect else { return }
        connect.set(
            source.subscribe { [self] event in
                if event.isTerminal {
                    // Reset before passing the end on, so a subscriber arriving from its handler starts over.
                    lock.withLock {
                        guard self.connection === connect else { return }
                        self.connection = nil
                        let resets = event.error != nil ? resetOnError : resetOnComplete
                        if resets { self.subject = nil } else { ended = true }
                    }
                }
                subject.on(event)
            })
    }
}
