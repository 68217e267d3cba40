import Atomics
import MarbleCore
import MarblesTesting

/// Runs a marble test body on a fresh scheduler reporting to the running test.
func marbles(
    _ body: (TestScheduler) -> Void, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line,
    column: Int = #column
) {
    let scheduler = TestScheduler()
    scheduler.run(fileID: fileID, filePath: filePath, line: line, column: column) { body(scheduler) }
}

/// Counts the subscriptions of tracked observables that are still alive, to prove that a test
/// released everything it subscribed (no retain cycles, nothing left in a scheduler).
final class LifetimeTracker: Sendable {
    private let alive = ManagedAtomic<Int>(0)
    private let made = ManagedAtomic<Int>(0)

    /// Subscriptions still holding resources.
    var liveSubscriptions: Int { alive.load(ordering: .acquiring) }
    /// Subscriptions made through tracked observables.
    var subscriptionsMade: Int { made.load(ordering: .acquiring) }

    final class Token: Sendable {
        let tracker: LifetimeTracker
        init(_ tracker: LifetimeTracker) {
            self.tracker = tracker
            tracker.alive.wrappingIncrement(by: 1, ordering: .relaxed)
            tracker.made.wrappingIncrement(by: 1, ordering: .relaxed)
        }
        deinit { tracker.alive.wrappingDecrement(by: 1, ordering: .relaxed) }
    }

    /// The source, with every subscription holding a token until its resources are released.
    func track<O: ObservableType>(_ source: O) -> Observable<O.Element> {
        Observable.create { observer in
            let token = Token(self)
            let subscription = source.subscribe(observer)
            return Disposables.create {
                withExtendedLifetime(token) {}
                subscription.dispose()
            }
        }
    }
}

struct TestError: Error, Equatable, CustomStringConvertible {
    var description: String
    init(_ description: String = "test error") { self.description = description }
}
