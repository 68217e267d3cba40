extension ObservableType {
    /// Subscribes to (and so runs the subscribe logic of) the source on `scheduler`.
    @inlinable
    public func subscribe(on scheduler: any Scheduler) -> Observable<Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let inner = SingleAssignmentDisposable()
            resources.insert(inner)
            resources.insert(
                scheduler.schedule {
                    inner.set(source.subscribe(downstream.on))
                })
        }
    }
}
