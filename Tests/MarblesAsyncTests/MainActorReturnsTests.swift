import Dispatch
import Foundation
import MarbleCore
import MarblesTesting
import Observation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Issue 58: a `@MainActor` model whose answer comes back from another thread. Each model is
// written as apps write it, with nothing injected; each test asks at frame 1 (100 ms frames) and
// expects the answer at the instant the model's code makes it due.

/// A model asked for a query, whose answer comes back from another thread into `results`.
@MainActor protocol SearchingModel: AnyObject {
    var results: [String] { get }
    func search(_ query: String)
}

/// A service answering through a completion handler on a global queue.
struct CallbackService: Sendable {
    func fetch(_ query: String, completion: @escaping @Sendable (String) -> Void) {
        DispatchQueue.global().async { completion(query.uppercased()) }
    }
}

/// Sleeps 300 ms, then awaits a continuation that a block on a global queue resumes.
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, visionOS 1.0, *)
@Observable @MainActor final class ContinuationModel {
    var results: [Int] = []

    func load() {
        Task {
            try? await Task.sleep(for: .milliseconds(300))
            let answer = await withCheckedContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(returning: 42) }
            }
            results.append(answer)
        }
    }
}

/// A completion handler on a global queue that hops back with `DispatchQueue.main.async`.
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, visionOS 1.0, *)
@Observable @MainActor final class MainQueueHopModel: SearchingModel {
    var results: [String] = []

    func search(_ query: String) {
        CallbackService().fetch(query) { answer in
            DispatchQueue.main.async { MainActor.assumeIsolated { self.results.append(answer) } }
        }
    }
}

/// The same, hopping back with `Task { @MainActor in }`.
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, visionOS 1.0, *)
@Observable @MainActor final class MainActorTaskHopModel: SearchingModel {
    var results: [String] = []

    func search(_ query: String) {
        CallbackService().fetch(query) { answer in
            Task { @MainActor in self.results.append(answer) }
        }
    }
}

/// A stub `URLProtocol`, as iOS network tests set one up: every request answers with the path's
/// last component, uppercased.
final class UppercasingURLProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let url = request.url, let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil)
        else { return }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: Data(url.lastPathComponent.uppercased().utf8))
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}

    static func session() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [UppercasingURLProtocol.self]
        return URLSession(configuration: configuration)
    }
}

/// An API client behind an actor, on `URLSession`.
actor SearchClient {
    private let session = UppercasingURLProtocol.session()

    func search(_ query: String) async throws -> String {
        let (data, _) = try await session.data(from: URL(string: "https://api.example.test/search/\(query)")!)
        return String(decoding: data, as: UTF8.self)
    }
}

/// A model whose `Task` awaits the actor.
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, visionOS 1.0, *)
@Observable @MainActor final class NetworkModel: SearchingModel {
    var results: [String] = []
    private let client = SearchClient()

    func search(_ query: String) {
        Task {
            if let answer = try? await client.search(query) { results.append(answer) }
        }
    }
}

/// A model whose `Task` awaits the session directly.
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, visionOS 1.0, *)
@Observable @MainActor final class DirectSessionModel: SearchingModel {
    var results: [String] = []
    private let session = UppercasingURLProtocol.session()

    func search(_ query: String) {
        Task {
            guard let (data, _) = try? await session.data(from: URL(string: "https://api.example.test/search/\(query)")!) else { return }
            results.append(String(decoding: data, as: UTF8.self))
        }
    }
}

/// A main-actor debouncer on `DispatchQueue.main.asyncAfter` with a `DispatchWorkItem`.
@MainActor final class WorkItemMainDebouncer {
    let shown = PublishSubject<String>()
    private var pending: DispatchWorkItem?

    func query(_ text: String) {
        pending?.cancel()
        let item = DispatchWorkItem { [self] in MainActor.assumeIsolated { shown.onNext(text) } }
        pending = item
        DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(300), execute: item)
    }
}

/// Work on a global queue that waits for the main actor while the test's thread waits for it:
/// `DispatchQueue.main.sync`, or `main.async` / `Task { @MainActor in }` and a semaphore.
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, visionOS 1.0, *)
@Observable @MainActor final class WaitsForMainModel {
    var results: [String] = []

    enum Way: Sendable { case mainSync, mainAsyncAndSemaphore, mainActorTaskAndSemaphore }

    func load(_ way: Way) {
        DispatchQueue.global().async {
            switch way {
            case .mainSync:
                DispatchQueue.main.sync { MainActor.assumeIsolated { self.results.append("sync") } }
            case .mainAsyncAndSemaphore:
                let done = DispatchSemaphore(value: 0)
                DispatchQueue.main.async {
                    MainActor.assumeIsolated { self.results.append("async") }
                    done.signal()
                }
                done.wait()
            case .mainActorTaskAndSemaphore:
                let done = DispatchSemaphore(value: 0)
                Task { @MainActor in
                    self.results.append("task")
                    done.signal()
                }
                done.wait()
            }
        }
    }
}

/// The rows of issue 58, each a run that returns its failures.
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, visionOS 1.0, *)
enum MainActorReturns: String, CaseIterable, Sendable {
    case continuation, mainQueueHop, mainActorTaskHop, network, directSession
    case mainSync, mainAsyncAndSemaphore, mainActorTaskAndSemaphore, workItemDebouncer

    /// Runs `body` on a fresh scheduler with 100 ms frames; returns the failures.
    @MainActor static func failures(_ body: (TestScheduler) -> Void) -> [String] {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(frame: .milliseconds(100), reporter: reporter)
        scheduler.foreignWorkTimeout = .seconds(5)
        scheduler.run { body(scheduler) }
        return reporter.failures.map(\.message)
    }

    /// A model asked at frame 1 (100 ms frames), its observed results expected to read
    /// `diagram` (`e`: none, `r`: `answer`).
    @MainActor static func asked<Value: Equatable>(
        _ diagram: String, _ answer: [Value], results: @escaping () -> [Value], ask: @escaping () -> Void
    ) -> [String] {
        failures { scheduler in
            let observed = scheduler.expect(observing: results)
            scheduler.schedule(after: .milliseconds(100)) { ask() }
            observed.toBe(diagram, values: ["e": [], "r": answer])
        }
    }

    /// The row's run.
    @MainActor func failures() -> [String] {
        switch self {
        case .continuation:
            let model = ContinuationModel()
            return Self.asked("e---r", [42], results: { model.results }, ask: { MainActor.assumeIsolated { model.load() } })
        case .mainQueueHop, .mainActorTaskHop, .network, .directSession:
            let model: any SearchingModel =
                switch self {
                case .mainQueueHop: MainQueueHopModel()
                case .mainActorTaskHop: MainActorTaskHopModel()
                case .network: NetworkModel()
                default: DirectSessionModel()
                }
            return Self.asked("er", ["SWIFT"], results: { model.results }, ask: { MainActor.assumeIsolated { model.search("swift") } })
        case .mainSync, .mainAsyncAndSemaphore, .mainActorTaskAndSemaphore:
            let way: WaitsForMainModel.Way =
                self == .mainSync ? .mainSync : self == .mainAsyncAndSemaphore ? .mainAsyncAndSemaphore : .mainActorTaskAndSemaphore
            let model = WaitsForMainModel()
            let answer = self == .mainSync ? "sync" : self == .mainAsyncAndSemaphore ? "async" : "task"
            return Self.asked("er", [answer], results: { model.results }, ask: { MainActor.assumeIsolated { model.load(way) } })
        case .workItemDebouncer:
            return Self.failures { scheduler in
                let model = WorkItemMainDebouncer()
                let shown = scheduler.expect(model.shown)
                let typing = scheduler.hot("-ab|", values: ["a": "sw", "b": "swift"])
                _ = typing.subscribe(onNext: { text in MainActor.assumeIsolated { model.query(text) } })
                shown.toBe("-----s", values: ["s": "swift"])
            }
        }
    }
}

#if os(Linux)
    @Suite("The main actor and other threads")
    @MainActor struct MainActorReturnsTests {
        /// Runs `row` and expects it to pass within `bound` of real time (no wait for a bound to pass).
        func passes(_ row: MainActorReturns, within bound: Duration = .seconds(2)) {
            let start = ContinuousClock.now
            let messages = row.failures()
            #expect(messages.isEmpty, "\(messages)")
            #expect(ContinuousClock.now - start < bound)
        }

        @Test(
            "a continuation resumed on a global queue gives a main-actor model its answer at the frame after the sleep", arguments: 0..<100)
        func continuationResumedOnGlobalQueue(_ run: Int) { passes(.continuation) }

        @Test("a completion handler hopping back with DispatchQueue.main.async answers at the instant it was asked", arguments: 0..<10)
        func mainQueueAsyncFromAnotherThread(_ run: Int) { passes(.mainQueueHop) }

        @Test("a completion handler hopping back with Task { @MainActor in } answers at the instant it was asked", arguments: 0..<10)
        func mainActorTaskFromAnotherThread(_ run: Int) { passes(.mainActorTaskHop) }

        @Test("a model awaiting an actor that calls URLSession with a stub URLProtocol gets the stub's answer at once", arguments: 0..<20)
        func urlSessionThroughAnActor(_ run: Int) { passes(.network) }

        @Test("a model awaiting URLSession directly gets the stub's answer at once", arguments: 0..<20)
        func urlSessionDirectly(_ run: Int) { passes(.directSession) }

        @Test("work on another thread that calls DispatchQueue.main.sync runs its block in the loop, at once", arguments: 0..<10)
        func mainSyncFromAnotherThread(_ run: Int) { passes(.mainSync, within: .seconds(1)) }

        @Test(
            "work on another thread that waits on a semaphore for main-actor work it handed over gets it, not a stall",
            arguments: [MainActorReturns.mainAsyncAndSemaphore, .mainActorTaskAndSemaphore])
        func semaphoreForMainWork(_ row: MainActorReturns) { passes(row) }

        @Test("a main-actor task resumed after its test ended runs on the real main actor, and the next test does not see it")
        func resumedAfterTheTest() async {
            let parked = LockedBox<CheckedContinuation<Int, Never>?>(nil)
            let resumed = LockedBox<Int?>(nil)
            do {
                let scheduler = TestScheduler(reporter: MarbleFailure.Collector())
                scheduler.run {
                    Task { @MainActor in
                        let value = await withCheckedContinuation { continuation in parked.withLock { $0 = continuation } }
                        MainActor.assertIsolated()
                        resumed.withLock { $0 = value }
                    }
                }
            }
            // The scheduler is gone; the next test's runs while another thread resumes the task.
            let reporter = MarbleFailure.Collector()
            let next = TestScheduler(frame: .milliseconds(100), reporter: reporter)
            DispatchQueue.global().async { parked.withLock { $0 }?.resume(returning: 1) }
            next.run { next.expect(next.cold("a-b|")).toBe("a-b|") }
            for _ in 0..<500 where resumed.withLock({ $0 }) == nil { try? await Task.sleep(for: .milliseconds(10)) }
            #expect(resumed.withLock { $0 } == 1)
            #expect(reporter.failures.isEmpty, "\(reporter.failures.map(\.message))")
        }
    }
#endif
