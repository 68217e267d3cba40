import Dispatch
import Foundation
import MarbleCore
import MarblesTesting

/// Work on other threads (issue 51): a test whose code waits for one block on a global queue,
/// against the same test resumed on the scheduler (a virtual action), 100 tests a round.
nonisolated func foreignWorkBenchmarks() {
    let tests = 100
    func oneTest(_ resume: @escaping @Sendable (CheckedContinuation<Int, Never>, TestScheduler) -> Void) {
        let scheduler = TestScheduler(reporter: MarbleFailure.Collector())
        let expectation = scheduler.run {
            scheduler.expect(emitting: Int.self) { emit in
                emit(await withCheckedContinuation { continuation in resume(continuation, scheduler) })
            }
        }
        precondition(expectation.recorded.count == 2, "\(expectation.recorded)")
    }
    compare(
        "a test whose code waits for one answer, \(tests) tests", unit: .microseconds(per: tests),
        [
            Contender("resumed on the scheduler") {
                for _ in 0..<tests {
                    oneTest { continuation, scheduler in
                        nonisolated(unsafe) let scheduler = scheduler
                        scheduler.schedule { continuation.resume(returning: 1) }
                    }
                }
            },
            Contender("resumed by a block on a global queue (waited for)") {
                for _ in 0..<tests {
                    oneTest { continuation, _ in DispatchQueue.global().async { continuation.resume(returning: 1) } }
                }
            },
        ])
}
