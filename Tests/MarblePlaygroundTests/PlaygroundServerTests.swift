#if Tools
    import Foundation
    import Testing

    @testable import MarblePlayground

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// A server on a free loopback port for the duration of `body`.
    func withServer<R>(
        folder: TemporaryFolder, limits: PlaygroundServer.Limits = .init(), _ body: (PlaygroundServer, Int) async throws -> R
    ) async throws -> R {
        let server = try PlaygroundServer(folder: folder.served.path, limits: limits)
        let serving = Task { try await server.run() }
        defer { serving.cancel() }
        let port = try await server.waitUntilListening()
        let result = try await body(server, Int(port))
        await server.stop()
        return result
    }

    /// A request over real HTTP; the token is sent unless `token` is `nil`.
    func request(
        _ port: Int, _ method: String, _ path: String, token: String?, body: Data? = nil
    ) async throws -> (status: Int, text: String) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.httpBody = body
        if let token { request.setValue(token, forHTTPHeaderField: "X-Marbles-Token") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as! HTTPURLResponse).statusCode, String(decoding: data, as: UTF8.self))
    }

    @Suite("Playground server: HTTP, token, limits")
    struct PlaygroundServerTests {
        @Test("the page and the API answer over loopback HTTP with the token, and 403 without it")
        func tokenGuardsEverything() async throws {
            let folder = try TemporaryFolder(["a.marble": "input: -a-|\n"])
            defer { folder.cleanUp() }
            try await withServer(folder: folder) { server, port throws in
                #expect(server.url == "http://127.0.0.1:\(port)/?token=\(server.token)")
                #expect(server.token.count == 64)
                let page = try await request(port, "GET", "/?token=\(server.token)", token: nil)
                #expect(page.status == 200)
                #expect(page.text.contains("<title>Marbles playground</title>"))
                #expect(!page.text.contains("http://") && !page.text.contains("https://"), "the page loads nothing from elsewhere")
                for path in ["/", "/api/gallery", "/api/files", "/api/file?path=a.marble"] {
                    #expect(try await request(port, "GET", path, token: nil).status == 403)
                    #expect(try await request(port, "GET", path, token: String(repeating: "0", count: 64)).status == 403)
                }
                #expect(try await request(port, "GET", "/api/file?path=a.marble", token: server.token).text == "input: -a-|\n")
                let rendered = try await request(
                    port, "POST", "/api/render?format=svg", token: server.token, body: Data("input: --1--|\noperator: map(x * 2)\n".utf8))
                #expect(rendered.status == 200)
                #expect(rendered.text.contains("output: 2 at frame 2, completes at frame 5."))
            }
        }

        @Test("malformed requests get a 4xx and change nothing on disk")
        func malformedRequests() async throws {
            let folder = try TemporaryFolder(["a.marble": "input: -a-|\n"])
            defer { folder.cleanUp() }
            let before = folder.snapshot()
            try await withServer(folder: folder) { server, port throws in
                let token = server.token
                let oversized = Data(repeating: 0x61, count: server.limits.maxBodyBytes + 1)
                #expect(try await request(port, "POST", "/api/render", token: token, body: oversized).status == 413)
                #expect(try await request(port, "PUT", "/api/file?path=a.marble", token: token, body: oversized).status == 413)
                #expect(
                    try await request(port, "PUT", "/api/file?path=a.marble", token: token, body: Data([0x69, 0xFF, 0xFE])).status == 400)
                #expect(try await request(port, "POST", "/api/render", token: token, body: Data([0xC3, 0x28])).status == 400)
                for path in ["..%2Fescaped.marble", "%2Ftmp%2Fescaped.marble", "a%2F..%2F..%2Fescaped.marble"] {
                    #expect(try await request(port, "PUT", "/api/file?path=\(path)", token: token, body: Data("x".utf8)).status == 403)
                }
                #expect(
                    try await request(port, "POST", "/api/render?format=gif", token: token, body: Data("input: -a-|".utf8)).status == 400)
                #expect(try await request(port, "DELETE", "/api/file?path=a.marble", token: token).status == 405)
                #expect(try await request(port, "GET", "/etc/passwd", token: token).status == 404)
            }
            #expect(folder.snapshot() == before)
        }

        @Test("a request naming another host is refused (DNS rebinding)")
        func otherHostRefused() async throws {
            let folder = try TemporaryFolder()
            defer { folder.cleanUp() }
            try await withServer(folder: folder) { server, port throws in
                func answer(host: String) async -> Int {
                    await server.answer(
                        method: "GET", path: "/api/files", query: [:], headers: ["host": host, "x-marbles-token": server.token],
                        body: { [] }
                    ).status
                }
                #expect(await answer(host: "127.0.0.1:\(port)") == 200)
                #expect(await answer(host: "localhost:\(port)") == 200)
                #expect(await answer(host: "evil.example:\(port)") == 403)
                #expect(await answer(host: "127.0.0.1:\(port + 1)") == 403)
            }
        }

        @Test("a render past the time limit answers 503 and the server keeps answering")
        func renderTimeLimit() async throws {
            let folder = try TemporaryFolder()
            defer { folder.cleanUp() }
            var limits = PlaygroundServer.Limits()
            limits.renderTime = .milliseconds(1)
            limits.renderWidth = 1
            // 2,000 frames drawn whole: the longest spec the runner accepts so, many milliseconds to render.
            let heavy =
                "input: -a-b-c-d-e-f-g-h-i-j-k-l-m-n-o-p-q-r-s-t-u-v-w-x-y-z 1900ms |\noperator: bufferCount(1, 1)\nstyle: gaps = full\n"
            try await withServer(folder: folder, limits: limits) { server, port throws in
                let slow = try await request(port, "POST", "/api/render?format=png&theme=dark", token: server.token, body: Data(heavy.utf8))
                #expect(slow.status == 503)
                #expect(slow.text.contains("rendering took longer than 0.001 s"))
                #expect(try await request(port, "GET", "/api/files", token: server.token).status == 200)
            }
        }

        @Test("renders past the capacity are refused at once")
        func capacityRefuses() async {
            let queue = RenderQueue(width: 1, capacity: 0, limit: .seconds(5))
            let reply = await queue.run { PlaygroundReply(status: 200, contentType: "text/plain", body: []) }
            #expect(reply.status == 503)
            #expect(reply.text.contains("busy"))
            let open = RenderQueue(width: 1, capacity: 1, limit: .seconds(5))
            #expect(await open.run { PlaygroundReply(status: 200, contentType: "text/plain", body: []) }.status == 200)
            #expect(await open.run { PlaygroundReply(status: 200, contentType: "text/plain", body: []) }.status == 200)
        }
    }
#endif
