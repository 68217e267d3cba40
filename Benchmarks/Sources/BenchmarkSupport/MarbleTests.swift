import MarbleCore
import Marbles

// What the benchmark executables share: one marble test, run as a test runs it.

/// Runs one marble test on a fresh scheduler and stops the program if it fails.
@inlinable
public func passing(_ body: (TestScheduler) -> Void) {
    let reporter = MarbleFailure.Collector()
    let scheduler = TestScheduler(reporter: reporter)
    scheduler.run { body(scheduler) }
    precondition(reporter.failures.isEmpty, "\(reporter.failures)")
}

/// The diagram an observable's recording prints as: the expectation of a recorded test.
public func recordedDiagram(_ make: (TestScheduler) -> Observable<String>) -> String {
    let scheduler = TestScheduler(reporter: MarbleFailure.Collector())
    let recording = scheduler.run { scheduler.record(make(scheduler)) }
    return MarbleDiagram.Printer().print(recording.events)
}
