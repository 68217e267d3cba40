import Foundation
import MarblesTesting
import NIOCore
import NIOPosix
import Testing

/// Every server test, one after another: a loop serves one run at a time, and the singleton's
/// loops are shared by NIO's tests and Vapor's (tests in parallel on one loop mix their deadlines).
@Suite(.serialized, .noPortabilityWarning) struct OnTheTestsClock {}

/// A scheduled task handed out of a run, to cancel after it.
final class ScheduledBox: @unchecked Sendable {
    private let lock = NSLock()
    private var task: Scheduled<Int>?
    func set(_ task: Scheduled<Int>) { lock.withLock { self.task = task } }
    func cancel() { lock.withLock { task }?.cancel() }
}

extension OnTheTestsClock {
    /// SwiftNIO's scheduled work on the test's clock: an event loop that serves the run (woken by
    /// it, or by a timer it set) is one of the run's threads for that iteration, and its timers are
    /// virtual. Nothing injected: the loops are NIO's own.
    @Suite("SwiftNIO's timers on the test's clock")
    struct EventLoopTimerTests {
        @Test(.virtualTime) func aScheduledTaskOnTheSingletonLoopRunsAtItsVirtualDeadline() async throws {
            let loop = MultiThreadedEventLoopGroup.singleton.next()
            let start = ContinuousClock.now
            let answer = try await loop.scheduleTask(in: .seconds(10)) { 42 }.futureResult.get()
            #expect(answer == 42)
            #expect(ContinuousClock.now - start == .seconds(10))
        }

        @Test(.virtualTime) func aLoopTheTestMakesKeepsVirtualDeadlinesToo() async throws {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let loop = group.next()
            let start = ContinuousClock.now
            let first = loop.scheduleTask(in: .seconds(3)) { ContinuousClock.now - start }
            let second = loop.scheduleTask(in: .milliseconds(1_500)) { ContinuousClock.now - start }
            #expect(try await second.futureResult.get() == .milliseconds(1_500))
            #expect(try await first.futureResult.get() == .seconds(3))
            // Not awaited: awaiting the shutdown inside the body ended "still suspended" about 1 run
            // in 25 (the group's notification, from threads that are leaving the run: issue 69).
            group.shutdownGracefully { _ in }
        }

        @Test(.virtualTime) func aRepeatedTaskTicksOnVirtualTime() async throws {
            let loop = MultiThreadedEventLoopGroup.singleton.next()
            let start = ContinuousClock.now
            let done = loop.makePromise(of: [Duration].self)
            nonisolated(unsafe) var ticks: [Duration] = []
            loop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(2)) { task in
                ticks.append(ContinuousClock.now - start)
                if ticks.count == 4 {
                    task.cancel()
                    done.succeed(ticks)
                }
            }
            let got = try await done.futureResult.get()
            #expect(got == [1, 3, 5, 7].map { Duration.seconds($0) }, "\(got)")
        }

        @Test(.virtualTime) func aDeadlineTakenOnTheTestsThreadAgreesWithTheLoops() async throws {
            let loop = MultiThreadedEventLoopGroup.singleton.next()
            let deadline = NIODeadline.now() + .seconds(5)
            let late = try await loop.scheduleTask(deadline: deadline) { NIODeadline.now() - deadline }.futureResult.get()
            #expect(late == .zero)
        }

        /// NIO sets its timerfd only for a deadline earlier than the one it believes set. Measured
        /// before session 29: a run that ended with a later task pending on the loop (its timer set
        /// on that run's clock, never fired) left the next run's 10 s task on that loop "still
        /// suspended at frame 0", every time.
        @Test func aDeadlineAnEarlierRunLeftOnTheLoopDoesNotHideTheNextRuns() async throws {
            let loop = MultiThreadedEventLoopGroup.singleton.next()
            let leftOver = try await withVirtualTime { _ in
                loop.scheduleTask(in: .seconds(5)) { "left over" }
            }
            let elapsed = try await withVirtualTime { _ in
                let start = ContinuousClock.now
                _ = try await loop.scheduleTask(in: .seconds(10)) { 42 }.futureResult.get()
                return ContinuousClock.now - start
            }
            #expect(elapsed == .seconds(10))
            leftOver.cancel()
        }

        /// A run that sets `loop`'s timer (a 10 s task), signals `armed`, then holds its virtual
        /// time still on `gate` (a semaphore made outside it: a real wait) before it awaits the task.
        static func runHoldingTheLoopsTimer(_ loop: any EventLoop, armed: DispatchSemaphore, gate: DispatchSemaphore) async throws -> Int {
            try await withVirtualTime { _ in
                let task = loop.scheduleTask(in: .seconds(10)) { 1 }
                try await loop.submit {}.get()  // the iteration that set the timer is over
                armed.signal()
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    DispatchQueue.global().async {
                        gate.wait()
                        done.resume()
                    }
                }
                return try await task.futureResult.get()
            }
        }

        /// Two runs alive at once on one loop mix their deadlines (NIO keeps one timer for the
        /// loop): what cannot be made virtual is named, to both. Run one sets the loop's timer
        /// (a 10 s task), then holds its virtual time still on a semaphore made outside it (a
        /// real wait); run two starts once the timer is set and schedules an earlier task on the
        /// same loop, which wakes the loop.
        @Test func twoRunsAtOnceOnOneLoopAreNamed() async throws {
            let loop = MultiThreadedEventLoopGroup.singleton.next()
            let armed = DispatchSemaphore(value: 0)
            let gate = DispatchSemaphore(value: 0)
            let seen = Seen()
            try await withKnownIssue("issue 69: tests in parallel on a shared loop") {
                async let first = Self.runHoldingTheLoopsTimer(loop, armed: armed, gate: gate)
                async let second: Int = withVirtualTime { _ in
                    armed.wait()
                    let answer = try await loop.scheduleTask(in: .seconds(3)) { 2 }.futureResult.get()
                    gate.signal()
                    return answer
                }
                _ = try await (first, second)
            } matching: { issue in
                seen.add(issue.comments.map(\.rawValue).joined(separator: "\n"))
                return true
            }
            gate.signal()
            let named = seen.all.filter { $0.contains("an event loop's timer armed at frame 0 was set on two tests' clocks at once") }
            #expect(named.count == 2, "\(seen.all)")
        }

        /// Run two's task is later than run one's. NIO (2.101) still wakes the loop for a task
        /// scheduled from another thread, so the loop serves run two while its timer is on run
        /// one's clock, and both are named as above (session 29's note thought this case unseen).
        @Test func aLaterDeadlineOnALoopAnotherRunsTimerHoldsIsNamedToo() async throws {
            let loop = MultiThreadedEventLoopGroup.singleton.next()
            let armed = DispatchSemaphore(value: 0)
            let gate = DispatchSemaphore(value: 0)
            let seen = Seen()
            let later = ScheduledBox()
            try await withKnownIssue("issue 69: tests in parallel on a shared loop") {
                async let first = Self.runHoldingTheLoopsTimer(loop, armed: armed, gate: gate)
                do {
                    _ = try await withVirtualTime { _ in
                        armed.wait()
                        let task = loop.scheduleTask(in: .seconds(20)) { 2 }
                        later.set(task)
                        return try await task.futureResult.get()
                    }
                } catch {
                    seen.add("\(error)")
                }
                gate.signal()
                _ = try await first
            } matching: { issue in
                seen.add(issue.comments.map(\.rawValue).joined(separator: "\n"))
                return true
            }
            later.cancel()
            let named = seen.all.filter { $0.contains("an event loop's timer armed at frame 0 was set on two tests' clocks at once") }
            #expect(named.count == 2, "\(seen.all)")
        }
    }
}
