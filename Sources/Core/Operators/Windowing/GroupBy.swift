/// The values of one group of ``ObservableType/groupBy(_:)``, with their key.
public struct GroupedObservable<Key, Element>: ObservableType {
    /// What every value of this group mapped to.
    public let key: Key
    let source: Observable<Element>

    public func asObservable() -> Observable<Element> { source }
}

extension ObservableType {
    /// Splits the source into one observable per key (RxJS/RxSwift `groupBy`): the first value
    /// of a new key emits its group, then every value goes to its key's group. Groups are hot:
    /// subscribe to each as it arrives.
    ///
    /// The source stays subscribed while the output or any group is subscribed, so a group can
    /// outlive the output's subscriber. Completion completes every group, then the output; an
    /// error (including one thrown by `keySelector`) goes to every group and the output.
    public func groupBy<Key: Hashable>(_ keySelector: @escaping (Element) throws -> Key) -> Observable<GroupedObservable<Key, Element>> {
        let source = asObservable()
        return Observable.create { downstream in
            // Who keeps the source subscribed: the output, and each group subscription.
            let holders = Locked((output: true, groups: 0))
            let sourceSubscription = SingleAssignmentDisposable()
            func release(_ change: @escaping (inout (output: Bool, groups: Int)) -> Void) {
                let unheld = holders.withLock { h -> Bool in
                    change(&h)
                    return !h.output && h.groups == 0
                }
                if unheld { sourceSubscription.dispose() }
            }
            // Touched only from the source's (serial) callbacks.
            var groups: [Key: PublishSubject<Element>] = [:]
            func end(_ event: Event<Element>) {
                for group in groups.values { group.on(event) }
                groups = [:]
                if case .error(let error) = event { downstream.onError(error) } else { downstream.onCompleted() }
                sourceSubscription.dispose()
            }
            sourceSubscription.set(
                source.subscribe { event in
                    switch event {
                    case .next(let value):
                        let key: Key
                        do { key = try keySelector(value) } catch { return end(.error(error)) }
                        if let group = groups[key] { return group.onNext(value) }
                        let subject = PublishSubject<Element>()
                        groups[key] = subject
                        let group = Observable<Element>.create { observer in
                            holders.withLock { $0.groups += 1 }
                            let subscription = subject.subscribe(observer.on)
                            return Disposables.create {
                                subscription.dispose()
                                release { $0.groups -= 1 }
                            }
                        }
                        downstream.onNext(GroupedObservable(key: key, source: group))
                        subject.onNext(value)
                    case .error, .completed: end(event)
                    }
                })
            return Disposables.create { release { $0.output = false } }
        }
    }

    /// Splits the source in two by `predicate` (RxJS `partition`): values that satisfy it, and
    /// values that do not. Each is the source filtered, and subscribes to the source on its own.
    public func partition(
        _ predicate: @escaping (Element) throws -> Bool
    ) -> (matching: Observable<Element>, rest: Observable<Element>) {
        let source = asObservable()
        return (source.filter(predicate), source.filter { try !predicate($0) })
    }
}
