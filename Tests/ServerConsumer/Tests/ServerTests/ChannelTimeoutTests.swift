import MarblesTesting
import NIOCore
import NIOPosix
import Testing

/// A channel initializer that adds the handler `make` returns.
func adding(_ make: @escaping @Sendable () -> any ChannelHandler) -> @Sendable (any Channel) -> EventLoopFuture<Void> {
    { channel in channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(make()) } }
}

/// Notes when bytes came to its channel, when its read side was idle (as `IdleStateHandler`
/// says), and when it became inactive (the other end closed).
final class ChannelEventCatcher: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let seen: Seen
    let start: ContinuousClock.Instant

    init(seen: Seen, start: ContinuousClock.Instant) {
        self.seen = seen
        self.start = start
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        seen.add("read \(unwrapInboundIn(data).readableBytes) at \(ContinuousClock.now - start)")
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let state = event as? IdleStateHandler.IdleStateEvent, state == .read { seen.add("idle at \(ContinuousClock.now - start)") }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        seen.add("closed at \(ContinuousClock.now - start)")
        context.fireChannelInactive()
    }
}

/// Issue 69 §4: the timeouts built on NIO's scheduled tasks (`IdleStateHandler`) on a live
/// connection between two channels of the test process.
extension OnTheTestsClock {
    @Suite("NIO channel timeouts on the test's clock")
    struct ChannelTimeoutTests {
        /// NIO connects before it adds the socket to its loop, and the server's loop accepts in an
        /// iteration no run woke: the connection flies until accepted, and the accepting iteration
        /// serves the run, so the child channel's idle timer is on the test's clock.
        @Test(.virtualTime) func anIdleStateHandlersReadTimeoutFiresAtItsVirtualDeadline() async throws {
            let group = MultiThreadedEventLoopGroup.singleton
            let seen = Seen()
            let start = ContinuousClock.now
            let server = try await ServerBootstrap(group: group)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandlers(
                            IdleStateHandler(readTimeout: .seconds(5)), ChannelEventCatcher(seen: seen, start: start))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
            let client = try await ClientBootstrap(group: group).connect(to: server.localAddress!).get()
            try await Task.sleep(for: .seconds(6))
            #expect(seen.all == ["idle at 5.0 seconds"])
            try await client.close()
            try await server.close()
        }

        /// A server in the process that never reads what the run sent it (its channel does not
        /// read) holds virtual time until the bound, and is named then, as a peer outside the
        /// process that never answers is.
        @Test func bytesAServerInTheProcessNeverReadsAreNamedWhenTheBoundPasses() async throws {
            let group = MultiThreadedEventLoopGroup.singleton
            let server = try await ServerBootstrap(group: group)
                .childChannelOption(.autoRead, value: false)
                .bind(host: "127.0.0.1", port: 0).get()
            let seen = Seen()
            nonisolated(unsafe) var client: Channel?
            try await withKnownIssue("the run reports the bytes it waited for, then goes on") {
                try await withVirtualTime { scheduler in
                    scheduler.foreignWorkTimeout = .milliseconds(300)
                    client = try await ClientBootstrap(group: group).connect(to: server.localAddress!).get()
                    try await client?.writeAndFlush(ByteBuffer(string: "hello")).get()
                    try await Task.sleep(for: .seconds(1))
                }
            } matching: { issue in
                seen.add(issue.comments.map(\.rawValue).joined(separator: "\n"))
                return true
            }
            #expect(seen.contains("real I/O (bytes sent to a socket of this process, not read yet) started at frame 0"), "\(seen.all)")
            try await client?.close()
            try await server.close()
        }

        /// Bytes a client sends, and its close, reach the server's channel at the instants they
        /// were sent, though the server's loop reads them in iterations no run woke (Go's rule: a
        /// close is in flight until the other end reads its end of stream).
        @Test(.virtualTime) func aClientsBytesAndCloseReachTheServerAtTheirVirtualInstants() async throws {
            let group = MultiThreadedEventLoopGroup.singleton
            let seen = Seen()
            let start = ContinuousClock.now
            let server = try await ServerBootstrap(group: group)
                .childChannelInitializer(adding { ChannelEventCatcher(seen: seen, start: start) })
                .bind(host: "127.0.0.1", port: 0).get()
            let client = try await ClientBootstrap(group: group).connect(to: server.localAddress!).get()
            try await Task.sleep(for: .seconds(1))
            try await client.writeAndFlush(ByteBuffer(string: "hello")).get()
            try await Task.sleep(for: .seconds(1))
            try await client.close()
            try await Task.sleep(for: .seconds(1))
            #expect(seen.all == ["read 5 at 1.0 seconds", "closed at 2.0 seconds"])
            try await server.close()
        }
    }
}

/// Notes each datagram's text and when it came.
final class DatagramCatcher: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let seen: Seen
    let start: ContinuousClock.Instant
    init(seen: Seen, start: ContinuousClock.Instant) {
        self.seen = seen
        self.start = start
    }
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        seen.add("\(String(buffer: envelope.data)) at \(ContinuousClock.now - start)")
    }
}

extension OnTheTestsClock.ChannelTimeoutTests {
    /// Datagrams between two channels of the process fly until received, as bytes do: before
    /// session 30 the receiver's loop read them in iterations no run woke, at real instants
    /// (0.0039 and 0.0043 s).
    @Test(.virtualTime) func datagramsReachAnotherChannelAtTheirVirtualInstants() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let seen = Seen()
        let start = ContinuousClock.now
        let receiver = try await DatagramBootstrap(group: group)
            .channelInitializer(adding { DatagramCatcher(seen: seen, start: start) })
            .bind(host: "127.0.0.1", port: 0).get()
        let sender = try await DatagramBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        for tick in ["a", "b"] {
            try await sender.writeAndFlush(AddressedEnvelope(remoteAddress: receiver.localAddress!, data: ByteBuffer(string: tick))).get()
            try await Task.sleep(for: .seconds(1))
        }
        #expect(seen.all == ["a at 0.0 seconds", "b at 1.0 seconds"])
        try await sender.close()
        try await receiver.close()
    }
}
