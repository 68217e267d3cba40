extension ObservableType {
    /// Runs side effects at points of the stream's life, without changing it.
    ///
    /// Covers RAC's `doNext`, `doError`, `doCompleted`, `initially` (`onSubscribe`, before the
    /// source is subscribed) and `finally` (`onDispose`, once, when the subscription ends by a
    /// terminal event or by dispose). An error thrown by `onNext` becomes the stream's error.
    @inlinable
    public func `do`(
        onNext: ((Element) throws -> Void)? = nil,
        onError: ((any Error) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil,
        onSubscribe: (() -> Void)? = nil,
        onSubscribed: (() -> Void)? = nil,
        onDispose: (() -> Void)? = nil
    ) -> Observable<Element> {
        let source = asObservable()
        return Observable { downstream in
            onSubscribe?()
            let resources = CompositeDisposable()
            let observer = Observer<Element> { event in
                switch event {
                case .next(let value):
                    do { try onNext?(value) } catch {
                        downstream.onError(error)
                        return
                    }
                case .error(let error): onError?(error)
                case .completed: onCompleted?()
                }
                downstream.on(event)
            }
            // Members are disposed in insertion order: the source is released before `onDispose`.
            resources.insert(observer)
            if let onDispose { resources.insert(AnonymousDisposable(onDispose)) }
            downstream.setUpstream(resources)
            source.run(observer)
            onSubscribed?()
        }
    }
}
