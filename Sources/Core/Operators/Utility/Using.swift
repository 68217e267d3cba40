extension Observable {
    /// Makes a resource for each subscription and an observable that uses it (RxSwift
    /// `using`); the resource is disposed when the subscription ends, whether by completion,
    /// error or unsubscription. A factory that throws ends the stream with its error (a
    /// resource already made is disposed).
    @inlinable
    public static func using<Resource: Disposable>(
        _ resourceFactory: @escaping () throws -> Resource,
        observableFactory: @escaping (Resource) throws -> Observable<Element>
    ) -> Observable<Element> {
        Observable.create { observer in
            let resource: Resource
            let source: Observable<Element>
            do { resource = try resourceFactory() } catch {
                observer.onError(error)
                return Disposables.create()
            }
            do { source = try observableFactory(resource) } catch {
                observer.onError(error)
                return resource
            }
            return Disposables.create(source.subscribe(observer.on), resource)
        }
    }

    /// Emits `element` again and again, synchronously, until unsubscribed (RxSwift
    /// `repeatElement`): combine it with `take` or `zip`. Under a virtual-time driver a
    /// subscription that never stops it ends at the step limit.
    @inlinable
    public static func repeatElement(_ element: Element) -> Observable<Element> {
        generate(initialState: element, condition: { _ in true }, iterate: { $0 })
    }

    /// Emits `element` again and again on `scheduler`, one emission per scheduled action, so
    /// that other work interleaves (RxSwift `repeatElement(_:scheduler:)`).
    @inlinable
    public static func repeatElement(_ element: Element, scheduler: any Scheduler) -> Observable<Element> {
        Observable.create { observer in
            let slot = SerialDisposable()
            // Counts emissions; a scheduled action takes the slot only while it is the newest,
            // checked under the same lock that counts (the action may run before `schedule` returns).
            let tick = Locked(0)
            func next() {
                let mine = tick.withLock { $0 }
                let scheduled = scheduler.schedule {
                    guard !slot.isDisposed else { return }
                    observer.onNext(element)
                    tick.withLock { $0 += 1 }
                    next()
                }
                tick.withLock { if $0 == mine { slot.set(scheduled) } }
            }
            next()
            return slot
        }
    }
}
