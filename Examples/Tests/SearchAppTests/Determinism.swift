import MarblesTesting
import Testing

/// Runs `scenario` on `runs` fresh schedulers and returns the distinct timelines it recorded
/// (one, when the code under test is deterministic on virtual time) and any failures.
func timelines<Element>(
    runs: Int = 500, frame: Duration = .milliseconds(100), _ scenario: (TestScheduler) -> MarbleExpectation<Element>
)
    -> (timelines: Set<String>, failures: [String])
{
    var timelines = Set<String>()
    var failures: [String] = []
    for _ in 0..<runs {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(frame: frame, reporter: reporter)
        let expectation = scheduler.run { scenario(scheduler) }
        failures += reporter.failures.map(\.message)
        timelines.insert(expectation.recorded.map { "\($0.value)@\($0.time)" }.joined(separator: " "))
    }
    return (timelines, failures)
}
