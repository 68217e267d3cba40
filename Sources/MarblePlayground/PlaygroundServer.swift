#if Tools
    import FlyingFox
    import Foundation
    import MarblegenCommands
    import Atomics

    /// The playground's HTTP server: one page and a small API, on the loopback interface only.
    ///
    /// Every request must carry the per-run token (in the page URL as `?token=`, on API calls as the
    /// `X-Marbles-Token` header) and name this server in its `Host` header, so neither another local
    /// user's page nor a DNS-rebinding site can drive it.
    ///
    /// | Request | Answer |
    /// | --- | --- |
    /// | `GET /?token=…` | the page |
    /// | `POST /api/render?format=svg\|png&theme=auto\|light\|dark` | the diagram, or 422 with `error`, `line`, `column` |
    /// | `GET /api/gallery` | `[{name, spec}]` of the operator gallery |
    /// | `GET /api/files` | `{folder, files}`: the served folder's `.marble` files |
    /// | `GET /api/file?path=…` | a spec's text |
    /// | `PUT /api/file?path=…` | saves a spec (atomically, inside the folder only) |
    package final class PlaygroundServer: Sendable {
        /// The limits a request meets.
        package struct Limits: Sendable {
            /// The largest request body accepted (413 beyond).
            package var maxBodyBytes = 256 * 1024
            /// How long a render may take before the server answers 503.
            package var renderTime: Duration = .seconds(5)
            /// Renders at once (the cores).
            package var renderWidth = max(ProcessInfo.processInfo.activeProcessorCount, 1)
            /// Renders admitted (running or waiting) before the server answers 503.
            package var renderCapacity = 64

            /// The defaults: 256 KiB bodies, 5 s per render, one render per core, 64 admitted.
            package init() {}
        }

        /// What the server does.
        package let service: PlaygroundService
        /// The per-run secret every request carries.
        package let token: String
        let limits: Limits
        let renders: RenderQueue
        private let http: HTTPServer
        private let boundPort = ManagedAtomic<Int>(0)

        /// Creates a server for `folder` on 127.0.0.1:`port` (0: a free port); a random token unless given.
        package init(folder: String, port: UInt16 = 0, token: String? = nil, limits: Limits = Limits()) throws {
            self.service = PlaygroundService(folder: folder)
            self.token = token ?? Self.randomToken()
            self.limits = limits
            self.renders = RenderQueue(width: limits.renderWidth, capacity: limits.renderCapacity, limit: limits.renderTime)
            let address = try sockaddr_in.inet(ip4: "127.0.0.1", port: port)
            self.http = HTTPServer(config: HTTPServer.Configuration(address: address, timeout: 30, logger: .disabled))
        }

        /// Serves until the task is cancelled.
        package func run() async throws {
            await http.appendRoute("*", to: PlaygroundHandler(server: self))
            try await http.run()
        }

        /// Waits until the socket listens, then returns the port it listens on.
        @discardableResult
        package func waitUntilListening() async throws -> UInt16 {
            try await http.waitUntilListening()
            if case .ip4(_, let port) = await http.listeningAddress { boundPort.store(Int(port), ordering: .relaxed) }
            return UInt16(boundPort.load(ordering: .relaxed))
        }

        /// The page's address, token included (after ``waitUntilListening()``).
        package var url: String { "http://127.0.0.1:\(boundPort.load(ordering: .relaxed))/?token=\(token)" }

        /// Stops listening, letting requests in flight finish for up to a second.
        package func stop() async { await http.stop(timeout: 1) }

        static func randomToken() -> String {
            var generator = SystemRandomNumberGenerator()
            return (0..<4).map { _ in String(generator.next() as UInt64, radix: 16).leftPadded(to: 16) }.joined()
        }

        /// Answers one request (the HTTP layer aside): checks host, token and size, then routes.
        func answer(method: String, path: String, query: [String: String], headers: [String: String], body: () async throws -> [UInt8]?)
            async -> PlaygroundReply
        {
            let port = boundPort.load(ordering: .relaxed)
            guard let host = headers["host"], host == "127.0.0.1:\(port)" || host == "localhost:\(port)" else {
                return .error(403, "this server answers only to 127.0.0.1:\(port) and localhost:\(port)")
            }
            let offered = headers["x-marbles-token"] ?? query["token"] ?? ""
            guard Self.sameSecret(offered, token) else {
                return .error(403, "missing or wrong token: open the address marbleplay printed when it started")
            }
            if let length = headers["content-length"].flatMap(Int.init), length > limits.maxBodyBytes {
                return .error(413, "the request body has \(length) bytes; the limit is \(limits.maxBodyBytes)")
            }
            switch (method, path) {
            case ("GET", "/"), ("GET", "/index.html"):
                return PlaygroundReply(status: 200, contentType: "text/html; charset=utf-8", body: Array(PlaygroundPage.html.utf8))
            case ("GET", "/api/gallery"): return service.gallery()
            case ("GET", "/api/files"): return service.files()
            case ("GET", "/api/file"): return service.read(query["path"] ?? "")
            case ("PUT", "/api/file"), ("POST", "/api/render"):
                let text: String
                switch await readText(body) {
                case .failure(let reply): return reply
                case .success(let read): text = read
                }
                if method == "PUT" { return service.save(query["path"] ?? "", text: text) }
                return await render(text, query: query)
            case (_, "/"), (_, "/api/gallery"), (_, "/api/files"), (_, "/api/file"), (_, "/api/render"):
                return .error(405, "\(method) is not allowed on \(path)")
            default:
                return .error(404, "no such page: \(path)")
            }
        }

        private func render(_ text: String, query: [String: String]) async -> PlaygroundReply {
            guard let format = OutputFormat(rawValue: query["format"] ?? "svg") else {
                return .error(400, "unknown format '\(query["format"] ?? "")' (svg, png, pdf)")
            }
            guard let theme = ThemeChoice(rawValue: query["theme"] ?? "auto") else {
                return .error(400, "unknown theme '\(query["theme"] ?? "")' (auto, light, dark)")
            }
            let service = self.service
            return await renders.run { service.render(text, format: format, theme: theme) }
        }

        /// The body as UTF-8 text: 413 past the limit, 400 when it is not UTF-8.
        private func readText(_ body: () async throws -> [UInt8]?) async -> Result<String, PlaygroundReply> {
            let bytes: [UInt8]
            do {
                guard let read = try await body() else {
                    return .failure(.error(413, "the request body is larger than \(limits.maxBodyBytes) bytes"))
                }
                bytes = read
            } catch {
                return .failure(.error(400, "cannot read the request body: \(error)"))
            }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                return .failure(.error(400, "the request body is not UTF-8 text"))
            }
            return .success(text)
        }

        /// Compares in time independent of where the strings differ.
        static func sameSecret(_ offered: String, _ secret: String) -> Bool {
            let a = Array(offered.utf8)
            let b = Array(secret.utf8)
            guard a.count == b.count else { return false }
            return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
        }
    }

    extension String {
        fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(width - count, 0)) + self }
    }

    /// FlyingFox's side: turns its requests into ``PlaygroundServer/answer`` calls and replies into responses.
    struct PlaygroundHandler: HTTPHandler {
        let server: PlaygroundServer

        func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
            var headers: [String: String] = [:]
            for (name, value) in request.headers { headers[name.rawValue.lowercased()] = value }
            var query: [String: String] = [:]
            for item in request.query where query[item.name] == nil { query[item.name] = item.value }
            let limit = server.limits.maxBodyBytes
            let reply = await server.answer(method: request.method.rawValue, path: request.path, query: query, headers: headers) {
                var bytes: [UInt8] = []
                for try await chunk in request.bodySequence {
                    bytes += chunk
                    if bytes.count > limit { return nil }
                }
                return bytes
            }
            var responseHeaders: HTTPHeaders = [
                .contentType: reply.contentType,
                HTTPHeader("Cache-Control"): "no-store",
                HTTPHeader("X-Content-Type-Options"): "nosniff",
                HTTPHeader("Referrer-Policy"): "no-referrer",
            ]
            if reply.contentType.hasPrefix("text/html") {
                // Nothing from elsewhere: the page's own inline script and style, rendered images as blobs.
                responseHeaders[HTTPHeader("Content-Security-Policy")] =
                    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src blob: data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
            }
            return HTTPResponse(
                statusCode: HTTPStatusCode(reply.status, phrase: Self.phrase(reply.status)), headers: responseHeaders,
                body: Data(reply.body))
        }

        static func phrase(_ status: Int) -> String {
            switch status {
            case 200: "OK"
            case 400: "Bad Request"
            case 403: "Forbidden"
            case 404: "Not Found"
            case 405: "Method Not Allowed"
            case 413: "Content Too Large"
            case 422: "Unprocessable Content"
            case 503: "Service Unavailable"
            default: "Error"
            }
        }
    }
#endif
