extension Observable {
    /// Waits for every source to complete, then emits their last values together and
    /// completes (RxJS 7 `forkJoin`). A source that completes without a value completes the
    /// result at once, with nothing; an error passes at once; no sources: completes at once.
    @inlinable
    public static func forkJoin<S: ObservableType>(_ sources: [S]) -> Observable<[S.Element]> where Element == [S.Element] {
        guard !sources.isEmpty else { return .empty() }
        return Observable<S.Element>.zip(sources.map { $0.takeLast(1) })
    }
}
