import AsyncAlgorithms

/// A model that debounces an `AsyncSequence` of queries with swift-async-algorithms in a
/// `Task` of its own, and publishes what it finds. It may take the clock debounce runs on
/// (`ContinuousClock` by default); tests can use either that default, whose `now` is virtual
/// inside a run on Linux, or the scheduler's clock.
public final class AsyncSearch<C: Clock>: @unchecked Sendable where C.Duration == Duration {
    private let api: SearchAPI
    private let clock: C
    private var task: Task<Void, Never>?

    public init(api: SearchAPI, clock: C) {
        self.api = api
        self.clock = clock
    }

    /// Starts searching `queries`; `show` gets each result list.
    public func start<Queries: AsyncSequence & Sendable>(
        queries: Queries, show: @escaping @Sendable ([String]) -> Void
    ) where Queries.Element == String {
        let (api, clock) = (self.api, self.clock)
        task = Task {
            do {
                for try await query in queries.debounce(for: .milliseconds(300), clock: clock) {
                    show(await api.search(query))
                }
            } catch {
                show([])
            }
        }
    }

    public func stop() { task?.cancel() }
}

extension AsyncSearch where C == ContinuousClock {
    /// Debounces on the system's continuous clock.
    public convenience init(api: SearchAPI) { self.init(api: api, clock: ContinuousClock()) }
}
