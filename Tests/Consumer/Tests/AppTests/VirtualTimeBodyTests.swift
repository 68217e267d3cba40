import Foundation
import MarblesTesting
import Testing

/// The search model, as an app writes it: nothing injected.
@MainActor
final class SearchModel {
    struct API: Sendable {
        var search: @Sendable (String) async throws -> [String]
        static let stub = API { query in [query.uppercased()] }
    }
    private let api: API
    private var pending: Task<Void, Never>?
    private(set) var results: [String] = []

    init(api: API) { self.api = api }

    func queryChanged(_ query: String) {
        pending?.cancel()
        pending = Task {
            do {
                try await Task.sleep(for: .milliseconds(300))
                results = try await api.search(query)
            } catch {}
        }
    }
}

// An app's async test, unchanged but for the trait; 100 times over, side by side under
// `--parallel`, each on its own virtual time.
@Suite("An app's async tests on virtual time")
struct VirtualTimeBodyTests {
    @MainActor
    @Test(.virtualTime, arguments: 0..<100) func showsResultsAfterAPause(_ run: Int) async throws {
        let model = SearchModel(api: .stub)
        model.queryChanged("swift")
        try await Task.sleep(for: .milliseconds(300))
        #expect(model.results == ["SWIFT"])
    }

    @Test(.virtualTime, .noPortabilityWarning) func aTenMinuteSleepTakesNoRealTime() async throws {
        let scheduler = try #require(TestScheduler.current)
        try await Task.sleep(for: .seconds(600))
        #expect(scheduler.now == .seconds(600))
    }
}

/// Not part of the app's suite: `make consumer-check` runs it with CONSUMER_HUNG_DEMO=1 under a
/// 30 s budget. Its body waits for a continuation nothing resumes and ignores its cancellation:
/// the test process ends within seconds, failed, and its output says why.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["CONSUMER_HUNG_DEMO"] == "1"))
struct HungBodyDemo {
    nonisolated(unsafe) static var kept: [CheckedContinuation<Void, Never>] = []

    @Test(.virtualTime) func hungBody() async {
        await withCheckedContinuation { Self.kept.append($0) }
    }
}
