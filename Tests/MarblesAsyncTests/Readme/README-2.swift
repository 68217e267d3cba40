// Generated from README.md (the block at line 90) by scripts/code-blocks.py: edit the
// document, then run `make code-blocks`.
// swift-format-ignore-file
import Observation

@MainActor @Observable final class SearchModel {
    private(set) var results: [String] = []
    private var task: Task<Void, Never>?
    private let search: @Sendable (String) async -> [String]

    init(search: @escaping @Sendable (String) async -> [String]) { self.search = search }

    func queryChanged(_ query: String) {
        task?.cancel()
        task = Task {
            try? await Task.sleep(for: .milliseconds(300))  // debounce
            guard !Task.isCancelled else { return }
            results = await search(query)
        }
    }
}
