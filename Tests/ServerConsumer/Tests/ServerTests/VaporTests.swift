import Foundation
import MarblesTesting
import Testing
import Vapor
import VaporTesting

struct TimedOut: Error {}

/// Races `operation` against a timeout, as a route's helper does.
func withTimeout<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw TimedOut()
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

/// A route's helper: a dependency that answers after 60 s, raced against a 5 s timeout.
func aSlowDependencyBehindATimeout() async throws -> String {
    do {
        return try await withTimeout(.seconds(5)) {
            try await Task.sleep(for: .seconds(60))
            return "late"
        }
    } catch is TimedOut {
        return "timed out"
    }
}

/// Issue 69's Vapor shapes, through Vapor's in-memory tester (`app.testing()`): Vapor collects a
/// request's body on an event loop, and the route resumes there. Measured on main before the
/// event loops served the run: the 30 s route and the timeout helper each took their full real
/// time and failed (0/5, 1/5), and the `Date()` limiter crashed the process in Vapor's metrics.
extension OnTheTestsClock {
    @Suite("Vapor's in-memory tester on the test's clock")
    struct VaporTests {
        @Test(.virtualTime) func aRouteThatSleepsThirtySecondsAnswersAtThirtySeconds() async throws {
            let app = try await Application.make(.testing)
            app.get("slow") { _ async throws -> String in
                try await Task.sleep(for: .seconds(30))
                return "done"
            }
            let start = ContinuousClock.now
            try await app.testing().test(.GET, "slow") { response async in
                #expect(response.status == .ok)
                #expect(response.body.string == "done")
            }
            #expect(ContinuousClock.now - start == .seconds(30))
            try await app.asyncShutdown()
        }

        @Test(.virtualTime) func aTimeoutHelperGivesUpAtFiveSeconds() async throws {
            let app = try await Application.make(.testing)
            app.get("dependency") { _ async throws -> String in try await aSlowDependencyBehindATimeout() }
            let start = ContinuousClock.now
            try await app.testing().test(.GET, "dependency") { response async in #expect(response.body.string == "timed out") }
            #expect(ContinuousClock.now - start == .seconds(5))
            try await app.asyncShutdown()
        }

        @Test(.virtualTime) func aDateRateLimiterHitAfterAVirtualSleepAnswersWithoutACrash() async throws {
            let app = try await Application.make(.testing)
            nonisolated(unsafe) var last: Date?
            app.get("limited") { _ -> String in
                let now = Date()
                defer { last = now }
                if let last, now.timeIntervalSince(last) < 1 { return "wait" }
                return "ok"
            }
            try await app.testing().test(.GET, "limited") { response async in #expect(response.body.string == "ok") }
            try await app.testing().test(.GET, "limited") { response async in #expect(response.body.string == "wait") }
            try await Task.sleep(for: .seconds(10))
            try await app.testing().test(.GET, "limited") { response async in #expect(response.body.string == "ok") }
            try await app.asyncShutdown()
        }

        /// A running server on loopback and Vapor's own client: the request crosses sockets
        /// between loops of the test process (was: real time, or `CancellationError()` at 0.26 s).
        /// Vapor's date cache ticks every second on each loop that served the run, forever; once
        /// the body returned, such timers alone do not keep the run going (they took it through
        /// 850,000 virtual seconds, 138 s of real time). Until session 30 the answer landed at the
        /// next date-cache tick about 1 run in 6, and stalled past the client's 30 s deadline about
        /// 1 run in 8 when run alone: the server read the request, and saw the client's close, in
        /// iterations no run woke. Bytes, connections and ends of stream between two sockets of the
        /// process now hold the run until the other end takes them (Go's rule), and the iteration
        /// that takes them serves the run. The route sleeps 20 s, inside the client's 30 s.
        /// A running server's routes on the test's clock: one calls another through Vapor's own
        /// client (`req.client`, async-http-client on the same loops), one waits on a task
        /// scheduled on its event loop (issue 69 measured both as real, or `CancellationError()`).
        @Test func aRunningServersClientCallAndScheduledTaskRunAtTheirVirtualInstants() async throws {
            try await withVirtualTime { _ in
                let app = try await Application.make(.testing)
                app.get("slow") { _ async throws -> String in
                    try await Task.sleep(for: .seconds(5))
                    return "slow"
                }
                app.get("proxy") { req async throws -> String in
                    let port = req.application.http.server.shared.localAddress?.port ?? 0
                    let answer = try await req.client.get("http://127.0.0.1:\(port)/slow")
                    return "proxied " + (answer.body.map { String(buffer: $0) } ?? "")
                }
                app.get("later") { req async throws -> String in
                    try await req.eventLoop.scheduleTask(in: .seconds(2)) { "later" }.futureResult.get()
                }
                var start = ContinuousClock.now
                try await app.testing(method: .running(port: 0)).test(.GET, "proxy") { response async in
                    #expect(response.body.string == "proxied slow")
                }
                #expect(ContinuousClock.now - start == .seconds(5))
                start = ContinuousClock.now
                try await app.testing(method: .running(port: 0)).test(.GET, "later") { response async in
                    #expect(response.body.string == "later")
                }
                #expect(ContinuousClock.now - start == .seconds(2))
                try await app.asyncShutdown()
            }
        }

        @Test func aRunningServersRouteThatSleepsAnswersAtItsVirtualInstant() async throws {
            nonisolated(unsafe) var run: TestScheduler?
            try await withVirtualTime { scheduler in
                run = scheduler
                let app = try await Application.make(.testing)
                app.get("slow") { _ async throws -> String in
                    try await Task.sleep(for: .seconds(20))
                    return "done"
                }
                let start = ContinuousClock.now
                try await app.testing(method: .running(port: 0)).test(.GET, "slow") { response async in
                    #expect(response.status == .ok)
                    #expect(response.body.string == "done")
                }
                #expect(ContinuousClock.now - start == .seconds(20))
                try await app.asyncShutdown()
            }
            // The run ended with the body: the loops' date-cache timers did not carry it on.
            #expect(try #require(run).now < .seconds(21))
        }
    }
}
