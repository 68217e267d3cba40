import Observation

/// A SwiftUI-style view model: main-actor isolated, observable, debouncing typing with
/// `Task.sleep`. Nothing in it was written for tests.
@MainActor @Observable public final class SearchModel {
    public private(set) var results: [String] = []
    private var task: Task<Void, Never>?
    @ObservationIgnored private let api: SearchAPI

    public init(api: SearchAPI) { self.api = api }

    public func queryChanged(_ query: String) {
        task?.cancel()
        task = Task {
            try? await Task.sleep(for: .milliseconds(300))  // debounce
            guard !Task.isCancelled else { return }
            results = await api.search(query)
        }
    }
}
