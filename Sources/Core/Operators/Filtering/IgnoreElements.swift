extension ObservableType {
    /// Drops every value; keeps completion and error.
    @inlinable
    public func ignoreElements() -> Observable<Element> {
        lift { observer in
            { event in if event.isTerminal { observer.on(event) } }
        }
    }
}
