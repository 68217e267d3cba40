extension ObservableType {
    /// Runs `action` once when the subscription ends, however it ends: completion, error or
    /// unsubscription (RxJS `finalize`). It runs after the terminal event is delivered.
    @inlinable
    public func finalize(_ action: @escaping () -> Void) -> Observable<Element> {
        self.do(onDispose: action)
    }
}
