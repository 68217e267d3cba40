import MarbleCore
import MarblesTesting
import Testing

/// A view model as apps write it: main-actor isolated, debouncing with `Task.sleep`, no clock injected.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
@MainActor final class DebouncingModel {
    private(set) var results: [String] = []
    let changes = PublishSubject<[String]>()
    private var task: Task<Void, Never>?
    private let search: @MainActor (String) async -> [String]

    init(search: @escaping @MainActor (String) async -> [String]) { self.search = search }

    func queryChanged(_ query: String) {
        task?.cancel()
        task = Task {
            try? await Task.sleep(for: .milliseconds(300))
            guard !Task.isCancelled else { return }
            MainActor.assertIsolated()
            results = await search(query)
            changes.onNext(results)
        }
    }
}

@Suite("Main-actor code on the test scheduler")
struct MainActorTests {
    /// The model's test, shared with the XCTest case.
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @MainActor static func debouncingModelTest() {
        let scheduler = TestScheduler(frame: .milliseconds(100))
        scheduler.run {
            let model = DebouncingModel { query in [query.uppercased()] }
            let queries = scheduler.hot("-a-b------c---|", values: ["a": "sw", "b": "swift", "c": "rx"])
            let expectation = scheduler.expect(model.changes)
            let subscription = queries.subscribe(onNext: { model.queryChanged($0) })
            expectation.toBe("------x------y", values: ["x": ["SWIFT"], "y": ["RX"]])
            scheduler.schedule(after: .seconds(2)) { subscription.dispose() }
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @MainActor
    @Test("a @MainActor model's Task { } and Task.sleep run on the main thread, on virtual time")
    func mainActorModel() { Self.debouncingModelTest() }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @MainActor
    @Test("Task { @MainActor in } and awaiting a main-actor function from the scheduler's tasks")
    func hopsToTheMainActor() {
        let scheduler = TestScheduler(frame: .milliseconds(100))
        scheduler.run {
            scheduler.expect(emitting: String.self) { emit in
                let first = await Self.onMain("a")
                emit(first)
                try await Task.sleep(for: .milliseconds(200))
                let second = await Task { @MainActor in
                    try? await Task.sleep(for: .milliseconds(300))
                    return Self.checkedOnMain("b")
                }.value
                emit(second)
            }.toBe("a----(b|)")
        }
    }

    /// Synchronous code that checks, as UIKit-style code does, that it runs on the main actor.
    nonisolated static func checkedOnMain(_ value: String) -> String { MainActor.assumeIsolated { value } }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @MainActor static func onMain(_ value: String) async -> String {
        MainActor.assertIsolated()
        return value
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("main-actor work from a test that is not on the main actor fails, saying to mark the test @MainActor")
    func notOnTheMainActor() async {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(frame: .milliseconds(100), reporter: reporter)
        scheduler.run {
            Task { @MainActor in _ = 1 }
        }
        let messages = reporter.failures.map(\.message)
        #expect(messages.contains { $0.contains("Mark the test @MainActor") }, "\(messages)")
    }
}
