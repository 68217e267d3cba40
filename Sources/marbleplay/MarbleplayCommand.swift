#if Tools
    import ArgumentParser
    import Foundation
    import MarblePlayground

    @main
    struct MarbleplayCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "marbleplay",
            abstract: "A live playground: edit a diagram spec in the browser and see the real operator's diagram as you type.",
            discussion: """
                Serves one page on 127.0.0.1 only. The address it prints carries a per-run token; \
                requests without it are refused. Specs in FOLDER are listed, and saved back atomically; \
                nothing outside FOLDER is read or written.
                """,
            version: "0.2.0")

        @Argument(help: "The folder whose .marble specs are listed and saved.")
        var folder: String = "diagrams"

        @Option(help: "The port to listen on (0: a free one).")
        var port: UInt16 = 0

        @Option(help: "The token the page address carries (default: a new random one per run).")
        var token: String?

        @Option(help: "Seconds a render may take before the server answers 503.")
        var renderSeconds: Double = 5

        func validate() throws {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("'\(folder)' is not a folder")
            }
            if let token, token.count < 16 || !token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
                throw ValidationError("the token must be at least 16 ASCII letters or digits")
            }
            guard renderSeconds > 0, renderSeconds <= 600 else { throw ValidationError("--render-seconds must be in (0, 600]") }
        }

        func run() async throws {
            var limits = PlaygroundServer.Limits()
            limits.renderTime = .milliseconds(Int64(renderSeconds * 1_000))
            let server = try PlaygroundServer(folder: folder, port: port, token: token, limits: limits)
            let port = self.port
            do {
                // Serving and announcing side by side: a port in use fails `run` at once, and that
                // error ends the group instead of a wait for a socket that never listens.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await server.run() }
                    group.addTask {
                        try await server.waitUntilListening()
                        // Written at once and unbuffered: scripts wait for the address on a pipe.
                        FileHandle.standardOutput.write(
                            Data("marbleplay: serving \(server.service.folder.path)\nopen \(server.url)\n".utf8))
                    }
                    while try await group.next() != nil {}
                }
            } catch {
                throw ServeError(description: "cannot serve on 127.0.0.1:\(port): \(error)")
            }
        }
    }

    /// Why serving stopped (a port in use, a socket error): printed without the usage text.
    struct ServeError: Error, CustomStringConvertible {
        var description: String
    }
#else
    import MarblegenCommands

    /// Built without the Tools trait: says how to get the real program.
    @main
    enum MarbleplayCommand {
        static func main() { exitForMissingToolsTrait("marbleplay") }
    }
#endif
