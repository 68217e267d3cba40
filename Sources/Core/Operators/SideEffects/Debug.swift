extension ObservableType {
    /// Prints every subscription, event and disposal with `identifier` (RxSwift `debug`), to
    /// `print` by default, for following a stream while developing.
    @inlinable
    public func debug(_ identifier: String = "debug", print: @escaping (String) -> Void = { Swift.print($0) }) -> Observable<Element> {
        self.do(
            onNext: { print("\(identifier) -> next(\($0))") },
            onError: { print("\(identifier) -> error(\($0))") },
            onCompleted: { print("\(identifier) -> completed") },
            onSubscribe: { print("\(identifier) -> subscribed") },
            onDispose: { print("\(identifier) -> disposed") })
    }
}
