#if Tools
    import Foundation
    import TestSupport
    import Testing

    /// Runs the built `marbleplay` executable, as a user's shell would.
    @Suite("marbleplay binary")
    struct MarbleplayBinaryTests {
        static var binary: URL? { builtExecutable("marbleplay") }

        /// Runs marbleplay until it exits; a server that keeps serving is a test failure after 20 s.
        func run(_ arguments: [String]) throws -> (status: Int32, errors: String) {
            let binary = try #require(Self.binary, "build marbleplay first (swift build --build-tests builds it)")
            let process = Process()
            process.executableURL = binary
            process.arguments = arguments
            let err = Pipe()
            process.standardError = err
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning {
                process.terminate()
                Issue.record("marbleplay \(arguments) did not exit")
            }
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }

        @Test("a port in use is an error at once, not a hang")
        func portInUse() async throws {
            let folder = try TemporaryFolder()
            defer { folder.cleanUp() }
            try await withServer(folder: folder) { _, port throws in
                let result = try run([folder.served.path, "--port", "\(port)"])
                #expect(result.status == 1)
                #expect(result.errors.contains("cannot serve on 127.0.0.1:\(port)"), "\(result.errors)")
                #expect(result.errors.contains("Address already in use"), "\(result.errors)")
            }
        }

        @Test("a folder that does not exist, a short token and a bad render limit are usage errors")
        func badArguments() throws {
            let missing = try run(["/nonexistent-\(UUID().uuidString)"])
            #expect(missing.status == 64)
            #expect(missing.errors.contains("is not a folder"))
            #expect(try run([NSTemporaryDirectory(), "--token", "short"]).errors.contains("at least 16 ASCII letters or digits"))
            #expect(try run([NSTemporaryDirectory(), "--render-seconds", "0"]).status == 64)
        }
    }
#endif
