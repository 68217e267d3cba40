import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import MarblesTesting
import NIOCore
import NIOPosix
import Testing

/// Issue 69's Hummingbird and async-http-client shapes. Router tests call the responder directly;
/// live tests run a real server on loopback, so the request's bytes cross sockets between two
/// event loops of this process. Measured on main before sockets were part of the run: the live
/// fast route answered 1/10 and the 10 s route 2/10 (Hummingbird's `DateCache` ticks every second
/// and jumped time while the request was on the sockets, so the client's 20 s read timeout fired
/// in milliseconds), and a 2 s client timeout against a 10 s route "passed" with status 200.
extension OnTheTestsClock {
    @Suite("Hummingbird and async-http-client on the test's clock")
    struct HummingbirdTests {
        static func slowRouter() -> Router<BasicRequestContext> {
            let router = Router()
            router.get("fast") { _, _ in "fast" }
            router.get("large") { _, _ -> String in
                try await Task.sleep(for: .seconds(1))
                return String(repeating: "x", count: 8 << 20)
            }
            router.post("upload") { request, _ -> String in
                let body = try await request.body.collect(upTo: 16 << 20)
                try await Task.sleep(for: .seconds(1))
                return "\(body.readableBytes)"
            }
            router.get("ticks") { _, _ -> Response in
                Response(
                    status: .ok,
                    body: ResponseBody { writer in
                        for tick in ["a", "b", "c"] {
                            try await writer.write(ByteBuffer(string: tick))
                            try await Task.sleep(for: .seconds(1))
                        }
                        try await writer.finish(nil)
                    })
            }
            router.get("slow") { _, _ -> String in
                try await Task.sleep(for: .seconds(10))
                return "slow"
            }
            return router
        }

        @Test(.virtualTime) func aRouterTestOfASleepingHandlerAnswersAtItsVirtualInstant() async throws {
            let app = Application(router: Self.slowRouter())
            let start = ContinuousClock.now
            try await app.test(.router) { client in
                try await client.execute(uri: "/slow", method: .get) { response in
                    #expect(String(buffer: response.body) == "slow")
                }
            }
            #expect(ContinuousClock.now - start == .seconds(10))
        }

        @Test(.virtualTime) func aRouterTestsTimeoutHelperGivesUpAtFiveSeconds() async throws {
            let router = Router()
            router.get("dependency") { _, _ -> String in try await aSlowDependencyBehindATimeout() }
            let start = ContinuousClock.now
            try await Application(router: router).test(.router) { client in
                try await client.execute(uri: "/dependency", method: .get) { response in
                    #expect(String(buffer: response.body) == "timed out")
                }
            }
            #expect(ContinuousClock.now - start == .seconds(5))
        }

        /// A limiter on whole wall-clock seconds (`Date()`): three requests a second. The issue saw
        /// it fail unless the start date was on a whole second; `Date()` in a test body now starts
        /// at 2000-01-01 00:00:00 UTC.
        @Test(.virtualTime) func aDateLimiterOnWholeSecondsCountsPerVirtualSecond() async throws {
            let router = Router()
            nonisolated(unsafe) var counts: [Int: Int] = [:]
            router.get("limited") { _, _ -> String in
                let second = Int(Date().timeIntervalSince1970)
                counts[second, default: 0] += 1
                return counts[second]! <= 3 ? "ok" : "wait"
            }
            let answers = try await Application(router: router).test(.router) { client in
                var answers: [String] = []
                for _ in 0..<4 {
                    answers.append(try await client.execute(uri: "/limited", method: .get) { String(buffer: $0.body) })
                    try await Task.sleep(for: .milliseconds(200))
                }
                try await Task.sleep(for: .seconds(1))
                answers.append(try await client.execute(uri: "/limited", method: .get) { String(buffer: $0.body) })
                return answers
            }
            #expect(answers == ["ok", "ok", "ok", "wait", "ok"])
        }

        @Test(.virtualTime) func aLiveFastRouteAnswers() async throws {
            let app = Application(router: Self.slowRouter())
            let elapsed = try await app.test(.live) { client in
                let start = ContinuousClock.now
                try await client.execute(uri: "/fast", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body) == "fast")
                }
                return ContinuousClock.now - start
            }
            #expect(elapsed == .zero)
        }

        @Test(.virtualTime) func aLiveRouteThatSleepsTenSecondsAnswersAtTenSeconds() async throws {
            let app = Application(router: Self.slowRouter())
            let elapsed = try await app.test(.live) { client in
                let start = ContinuousClock.now
                try await client.execute(uri: "/slow", method: .get) { response in
                    #expect(String(buffer: response.body) == "slow")
                }
                return ContinuousClock.now - start
            }
            #expect(elapsed == .seconds(10))
        }

        /// An 8 MB answer is written in parts: the kernel takes part of it, and NIO writes the
        /// rest when the socket is writable again, in an iteration the run did not wake.
        @Test(.virtualTime) func aLargeAnswerWrittenInPartsArrivesAtItsInstant() async throws {
            let app = Application(router: Self.slowRouter())
            let (count, elapsed) = try await app.test(.live) { client in
                let start = ContinuousClock.now
                let count = try await client.execute(uri: "/large", method: .get) { $0.body.readableBytes }
                return (count, ContinuousClock.now - start)
            }
            #expect(count == 8 << 20)
            #expect(elapsed == .seconds(1))
        }

        /// The mirror: an 8 MB request body the client writes in parts, which the server reads
        /// as it arrives, then answers a second later.
        @Test(.virtualTime) func aLargeUploadWrittenInPartsIsAnsweredAtItsInstant() async throws {
            let app = Application(router: Self.slowRouter())
            let (answer, elapsed) = try await app.test(.live) { client in
                let start = ContinuousClock.now
                let body = ByteBuffer(repeating: UInt8(ascii: "x"), count: 8 << 20)
                let answer = try await client.execute(uri: "/upload", method: .post, body: body) { String(buffer: $0.body) }
                return (answer, ContinuousClock.now - start)
            }
            #expect(answer == "\(8 << 20)")
            #expect(elapsed == .seconds(1))
        }

        /// A streamed answer: each part reaches the client at the instant the route wrote it.
        @Test(.virtualTime) func aStreamedAnswersPartsArriveAtTheirInstants() async throws {
            let app = Application(router: Self.slowRouter())
            let arrivals = try await app.test(.live) { client in
                let start = ContinuousClock.now
                let response = try await HTTPClient.shared.execute(
                    HTTPClientRequest(url: "http://localhost:\(client.port!)/ticks"), timeout: .seconds(30))
                var arrivals: [String] = []
                for try await part in response.body { arrivals.append("\(String(buffer: part)) at \(ContinuousClock.now - start)") }
                arrivals.append("end at \(ContinuousClock.now - start)")
                return arrivals
            }
            #expect(arrivals == ["a at 0.0 seconds", "b at 1.0 seconds", "c at 2.0 seconds", "end at 3.0 seconds"])
        }

        /// Two requests, one after the other on the same kept-alive connection, ten virtual
        /// seconds apart.
        @Test(.virtualTime) func twoRequestsOnOneConnectionTenSecondsApart() async throws {
            let app = Application(router: Self.slowRouter())
            let times = try await app.test(.live) { client in
                let start = ContinuousClock.now
                var times: [Duration] = []
                for _ in 0..<2 {
                    _ = try await client.execute(uri: "/fast", method: .get) { String(buffer: $0.body) }
                    times.append(ContinuousClock.now - start)
                    try await Task.sleep(for: .seconds(10))
                }
                return times
            }
            #expect(times == [.zero, .seconds(10)])
        }

        /// The server's idle timeout (an `IdleStateHandler` on the accepted connection) closes a
        /// connection that sends nothing at its virtual deadline, and the client sees the close then.
        @Test(.virtualTime) func theServersIdleTimeoutClosesAQuietConnectionAtItsInstant() async throws {
            let app = Application(router: Self.slowRouter(), server: .http1(configuration: .init(idleTimeout: .seconds(5))))
            let seen = Seen()
            try await app.test(.live) { client in
                let start = ContinuousClock.now
                let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .channelInitializer(adding { ChannelEventCatcher(seen: seen, start: start) })
                    .connect(host: "127.0.0.1", port: client.port!).get()
                try await Task.sleep(for: .seconds(6))
                try? await channel.close()
            }
            #expect(seen.all == ["closed at 5.0 seconds"])
        }

        @Test(.virtualTime) func aClientsTwoSecondTimeoutFiresBeforeATenSecondRoute() async throws {
            let app = Application(router: Self.slowRouter())
            let outcome = try await app.test(.live) { client in
                let start = ContinuousClock.now
                let request = HTTPClientRequest(url: "http://localhost:\(client.port!)/slow")
                do {
                    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(2))
                    return ("answered \(response.status.code)", ContinuousClock.now - start)
                } catch let error as HTTPClientError where error == .deadlineExceeded {
                    return ("timed out", ContinuousClock.now - start)
                }
            }
            #expect(outcome.0 == "timed out")
            #expect(outcome.1 == .seconds(2))
        }
    }
}
