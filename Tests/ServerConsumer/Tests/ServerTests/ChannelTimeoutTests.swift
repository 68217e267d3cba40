import MarblesTesting
import NIOCore
import NIOPosix
import Testing

/// Notes when its channel's read side has been idle, as `IdleStateHandler` says.
final class IdleReadCatcher: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let idle: Seen
    let start: ContinuousClock.Instant

    init(idle: Seen, start: ContinuousClock.Instant) {
        self.idle = idle
        self.start = start
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let state = event as? IdleStateHandler.IdleStateEvent, state == .read { idle.add("\(ContinuousClock.now - start)") }
        context.fireUserInboundEventTriggered(event)
    }
}

/// Issue 69 §4: the timeouts built on NIO's scheduled tasks (`IdleStateHandler`) on a live
/// connection between two channels of the test process.
extension OnTheTestsClock {
    @Suite("NIO channel timeouts on the test's clock")
    struct ChannelTimeoutTests {
        /// Known, issue 69 (session 29): no idle event within 6 s of virtual time, every run. NIO
        /// connects before it adds the socket to its loop, so the client's connect marks no loop,
        /// and the server's loop accepts the connection in an iteration no run woke: the child
        /// channel and its idle timer run on real time. Marking every loop at a member's connect
        /// (as at a write) made it fire at 5 s (alone 5 of 5; in the suite 1–3 ms late about 1 run
        /// in 3, the loopback handshake completing after the marked iteration), but it made
        /// Vapor's running-server test fail 4 runs in 50 with the client's deadline, so it is not
        /// in; see the closing note of session 29.
        @Test(.virtualTime) func anIdleStateHandlersReadTimeoutFiresAtItsVirtualDeadline() async throws {
            let group = MultiThreadedEventLoopGroup.singleton
            let seen = Seen()
            let start = ContinuousClock.now
            let server = try await ServerBootstrap(group: group)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandlers(
                            IdleStateHandler(readTimeout: .seconds(5)), IdleReadCatcher(idle: seen, start: start))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
            let client = try await ClientBootstrap(group: group).connect(to: server.localAddress!).get()
            try await Task.sleep(for: .seconds(6))
            withKnownIssue("issue 69: the accept runs outside the run") {
                #expect(seen.all == ["5.0 seconds"])
            }
            try await client.close()
            try await server.close()
        }
    }
}
