extension Observable {
    /// Follows the case that the latest key selects (ReactiveCocoa's `+switch:cases:default:`):
    /// each key from `keys` switches to its case's observable, unsubscribing from the previous
    /// one (the same as mapping keys to cases and ``ObservableType/switchLatest()``).
    ///
    /// A key with no case uses `default`; with no default it ends the stream with
    /// ``RxError/noCase(key:)``. Completes when `keys` and the current case have completed; an
    /// error from either ends the stream.
    ///
    /// ```
    /// keys:    -a-----b----|
    /// case a:  --1-2-3|
    /// case b:  -x-y|
    /// result:  ---1-2--x-y-|
    /// ```
    @inlinable
    public static func switchCase<Keys: ObservableType>(
        _ keys: Keys, cases: [Keys.Element: Observable<Element>], default defaultCase: Observable<Element>? = nil
    ) -> Observable<Element> where Keys.Element: Hashable {
        keys.flatMapLatest { key -> Observable<Element> in
            guard let source = cases[key] ?? defaultCase else { throw RxError.noCase(key: String(describing: key)) }
            return source
        }
    }

    /// Follows `then` while the latest condition is `true` and `else` while it is `false`
    /// (ReactiveCocoa's `+if:then:else:`), switching, and unsubscribing from the other, on
    /// every new condition. Completes when `conditions` and the current branch have completed.
    @inlinable
    public static func `if`<Conditions: ObservableType>(
        _ conditions: Conditions, then thenSource: Observable<Element>, else elseSource: Observable<Element>
    ) -> Observable<Element> where Conditions.Element == Bool {
        conditions.flatMapLatest { $0 ? thenSource : elseSource }
    }
}
