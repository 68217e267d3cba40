import Dispatch
import Foundation
import MarbleCore
import MarblesTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

// Issue 67: a stub's delayed answer lands at its delay, and real I/O keeps working: a member
// blocked on it holds virtual time still, as in Go's synctest.

/// A stub `URLProtocol` that answers after a delay, as network tests fake a slow server.
final class DelayedURLProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    /// The stub, handed to the queue that answers (URLProtocol is not Sendable; its client is
    /// called from any thread).
    private struct Answer: @unchecked Sendable {
        let stub: DelayedURLProtocol
        func send() {
            guard let url = stub.request.url,
                let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil)
            else { return }
            stub.client?.urlProtocol(stub, didReceive: response, cacheStoragePolicy: .notAllowed)
            stub.client?.urlProtocol(stub, didLoad: Data(url.lastPathComponent.uppercased().utf8))
            stub.client?.urlProtocolDidFinishLoading(stub)
        }
    }

    override func startLoading() {
        let answer = Answer(stub: self)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(500)) { answer.send() }
    }

    override func stopLoading() {}

    static func session() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [DelayedURLProtocol.self]
        return URLSession(configuration: configuration)
    }
}

/// A model that shows a loading state while its request is out.
@MainActor final class LoadingModel {
    private(set) var isLoading = false
    private(set) var answer: String?
    private let session = DelayedURLProtocol.session()

    func load(_ query: String) {
        isLoading = true
        Task {
            let (data, _) = try await session.data(from: URL(string: "https://api.example.test/\(query)")!)
            answer = String(decoding: data, as: UTF8.self)
            isLoading = false
        }
    }
}

/// A loopback HTTP server on a thread started outside any run (a plain `pthread_create`, which
/// the interposer leaves alone), answering every request after `delay` of real time.
final class SlowLoopbackServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let delay: useconds_t

    init(delay: Duration) {
        self.delay = useconds_t(delay.components.seconds * 1_000_000 + delay.components.attoseconds / 1_000_000_000_000)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = bind(listener, $0, length)
                _ = getsockname(listener, $0, &length)
            }
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        listen(listener, 16)
        Self.startThread { [self] in serve() }
    }

    /// A plain `pthread_create` (which the interposer leaves alone), detached.
    private static func startThread(_ body: @escaping () -> Void) {
        final class Work {
            let body: () -> Void
            init(_ body: @escaping () -> Void) { self.body = body }
        }
        var thread = pthread_t()
        pthread_create(
            &thread, nil,
            { raw in
                Unmanaged<Work>.fromOpaque(raw!).takeRetainedValue().body()
                return nil
            }, Unmanaged.passRetained(Work(body)).toOpaque())
        pthread_detach(thread)
    }

    /// Accepts connections, each answered on a thread of its own (requests side by side each
    /// take `delay`).
    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            let answer = Answer(connection: connection, delay: delay)
            Self.startThread { answer.send() }
        }
    }

    private final class Answer {
        let connection: Int32
        let delay: useconds_t
        init(connection: Int32, delay: useconds_t) {
            self.connection = connection
            self.delay = delay
        }

        func send() {
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = read(connection, &buffer, buffer.count)
            usleep(delay)
            let reply = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8)
            _ = write(connection, reply, reply.count)
            close(connection)
        }
    }
}

@Suite("One bubble: stubs and real I/O", .noPortabilityWarning)
struct OneBubbleIOTests {
    @MainActor
    @Test(.virtualTime) func aStubsDelayedAnswerLandsAtItsDelayAndTheLoadingStateShowsMeanwhile() async throws {
        let model = LoadingModel()
        let start = ContinuousClock.now
        model.load("swift")
        try await Task.sleep(for: .milliseconds(499))
        #expect(model.isLoading)
        #expect(model.answer == nil)
        try await Task.sleep(for: .milliseconds(1))
        #expect(!model.isLoading)
        #expect(model.answer == "SWIFT")
        #expect(ContinuousClock.now - start == .milliseconds(500))
    }

    static let slowServer = SlowLoopbackServer(delay: .seconds(1))

    @Test(.virtualTime) func aRequestToALoopbackServerThatTakesOneSecondGetsItsAnswer() async throws {
        let port = Self.slowServer.port
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/")!)
        request.timeoutInterval = 5
        let (data, _) = try await URLSession(configuration: .ephemeral).data(for: request)
        #expect(String(decoding: data, as: UTF8.self) == "ok")
    }

    @Test(.virtualTime) func virtualTimeStandsStillWhileARequestIsOnTheWire() async throws {
        let port = Self.slowServer.port
        let start = ContinuousClock.now
        let ticker = Task {
            var ticks = 0
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                ticks += 1
            }
            return ticks
        }
        let (data, _) = try await URLSession(configuration: .ephemeral).data(from: URL(string: "http://127.0.0.1:\(port)/")!)
        #expect(String(decoding: data, as: UTF8.self) == "ok")
        #expect(ContinuousClock.now - start == .zero)
        ticker.cancel()
        #expect(await ticker.value <= 1)
    }
}
