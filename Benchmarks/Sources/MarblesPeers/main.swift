import Clocks
import ConcurrencyExtras
import Foundation
import MarblesTesting

// The same app code tested two ways (issue 70): with `withVirtualTime` (what `@Test(.virtualTime)`
// runs), nothing injected, the code on `ContinuousClock`; and with swift-clocks' `TestClock`
// injected, with and without swift-concurrency-extras' `withMainSerialExecutor`. Release build,
// serial, CASES cases a row (default 200), the fastest of ROUNDS (default 3). `make bench-peers`.
// The Marbles rows run from a task while the main thread waits (as a test runner's tests run
// off the main thread); the TestClock rows need the main actor, so they run once the main thread
// drains the main queue (`dispatchMain`).

/// A search box that waits for typing to pause (300 ms) before it searches: a `@MainActor`
/// model as an app writes it, its clock a parameter only for the peer that needs one.
@MainActor
final class DebouncedSearch {
    let clock: any Clock<Duration>
    private(set) var results: [String] = []
    private var pending: Task<Void, Never>?

    init(clock: any Clock<Duration> = ContinuousClock()) { self.clock = clock }

    func type(_ query: String) {
        pending?.cancel()
        pending = Task { [clock] in
            do { try await clock.sleep(for: .milliseconds(300)) } catch { return }
            results = [query.uppercased()]
        }
    }
}

struct Flaky: Error {}

/// Retries `operation` with exponential backoff (100 ms, 200 ms, 400 ms, …).
func retrying(clock: any Clock<Duration> = ContinuousClock(), attempts: Int, _ operation: @Sendable () async throws -> Int) async throws
    -> Int
{
    var delay = Duration.milliseconds(100)
    for attempt in 1... {
        do { return try await operation() } catch  where attempt < attempts {
            try await clock.sleep(for: delay)
            delay *= 2
        }
    }
    fatalError("unreachable")
}

/// An operation that fails `failures` times, then answers 42.
final class Countdown: @unchecked Sendable {
    private let lock = NSLock()
    private var left: Int
    init(failures: Int) { left = failures }
    func call() throws -> Int {
        try lock.withLock {
            guard left == 0 else {
                left -= 1
                throw Flaky()
            }
            return 42
        }
    }
}

let cases = Int(ProcessInfo.processInfo.environment["CASES"] ?? "") ?? 200
let rounds = Int(ProcessInfo.processInfo.environment["ROUNDS"] ?? "") ?? 3

/// The fastest of `rounds` runs of `cases` cases, in ms a case, on the caller's actor.
func measure(
    _ name: String, isolation: isolated (any Actor)? = #isolation, _ oneCase: () async throws -> Void
) async rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<rounds {
        let start = ContinuousClock.now
        for _ in 0..<cases { try await oneCase() }
        let elapsed = ContinuousClock.now - start
        best = min(best, (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * 1e3 / Double(cases))
    }
    print("  \(name.padding(toLength: 66, withPad: " ", startingAt: 0)) \(String(format: "%7.3f", best)) ms a case")
    return best
}

/// Runs `work` in a task and waits for it on this thread.
func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> T {
    nonisolated(unsafe) var result: Result<T, any Error>?
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do { result = .success(try await work()) } catch { result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try! result!.get()
}

print("the same app code, \(cases) cases a row (fastest of \(rounds)), release")
let (debounceMarbles, retryMarbles) = blocking {
    print("a @MainActor search model that waits 300 ms for typing to pause")
    let debounce = try await measure("withVirtualTime, nothing injected (ContinuousClock)") {
        let results = try await withVirtualTime { @MainActor _ in
            let model = DebouncedSearch()
            model.type("s")
            try await Task.sleep(for: .milliseconds(100))
            model.type("sw")
            try await Task.sleep(for: .milliseconds(400))
            return model.results
        }
        precondition(results == ["SW"], "\(results)")
    }
    print("retry with backoff: three failures (100, 200, 400 ms), then 42")
    let retry = try await measure("withVirtualTime, nothing injected (ContinuousClock)") {
        let answer = try await withVirtualTime { _ in
            let countdown = Countdown(failures: 3)
            return try await retrying(attempts: 5) { try countdown.call() }
        }
        precondition(answer == 42)
    }
    return (debounce, retry)
}

Task { @MainActor in
    print("the peers, on the main actor")
    let debounceSerial = await measure("debounce: TestClock injected, in withMainSerialExecutor") {
        await withMainSerialExecutor {
            let clock = TestClock()
            let model = DebouncedSearch(clock: clock)
            model.type("s")
            await clock.advance(by: .milliseconds(100))
            model.type("sw")
            await clock.advance(by: .milliseconds(400))
            precondition(model.results == ["SW"], "\(model.results)")
        }
    }
    let retryTestClock = try await measure("retry: TestClock injected, advanced with run()") {
        let clock = TestClock()
        let countdown = Countdown(failures: 3)
        let task = Task { try await retrying(clock: clock, attempts: 5) { try countdown.call() } }
        await clock.run()
        let answer = try await task.value
        precondition(answer == 42)
    }
    print("debounce: TestClock with the serial executor ÷ withVirtualTime: \(String(format: "%.2f", debounceSerial / debounceMarbles))×")
    print("retry: TestClock.run() ÷ withVirtualTime: \(String(format: "%.2f", retryTestClock / retryMarbles))×")
    exit(0)
}
dispatchMain()
