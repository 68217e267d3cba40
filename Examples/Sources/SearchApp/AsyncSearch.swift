import AsyncAlgorithms

/// A model that debounces an `AsyncSequence` of queries with swift-async-algorithms (on its
/// default clock, `ContinuousClock`) in a `Task` of its own, and publishes what it finds.
public final class AsyncSearch: @unchecked Sendable {
    private let api: SearchAPI
    private var task: Task<Void, Never>?

    public init(api: SearchAPI) { self.api = api }

    /// Starts searching `queries`; `show` gets each result list.
    public func start<Queries: AsyncSequence & Sendable>(
        queries: Queries, show: @escaping @Sendable ([String]) -> Void
    ) where Queries.Element == String, Queries.Failure == Never {
        let api = self.api
        task = Task {
            for await query in queries.debounce(for: .milliseconds(300)) {
                show(await api.search(query))
            }
        }
    }

    public func stop() { task?.cancel() }
}
