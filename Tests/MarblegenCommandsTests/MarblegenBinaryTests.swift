#if Tools
    import Foundation
    import TestSupport
    import Testing

    /// Runs the built `marblegen` executable, as a user's shell would.
    @Suite("marblegen binary")
    struct MarblegenBinaryTests {
        static var binary: URL? { builtExecutable("marblegen") }

        func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
            let binary = try #require(Self.binary, "build marblegen first (swift build --build-tests builds it)")
            let process = Process()
            process.executableURL = binary
            process.arguments = arguments
            let out = Pipe()
            let err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let output = out.fileHandleForReading.readDataToEndOfFile()
            let errors = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
        }

        @Test("draw renders inputs and an operator from the command line; inputs repeat and may start with dashes")
        func draw() throws {
            let result = try run(["draw", "--input", "--a--b|", "--input", "-1---2|", "--operator", "combineLatest", "-o", "-"])
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.output.hasPrefix("<?xml"))
            #expect(result.output.contains("<desc>source: a at frame 2, b at frame 5, completes at frame 6. in2: 1 at frame 1"))
            let folder = NSTemporaryDirectory() + "marblegen-draw-\(UUID().uuidString)"
            let target = folder + "/out.png"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            #expect(try run(["draw", "--input", "-a|", "--operator", "map(x + x)", "-o", target]).status == 0)
            #expect(FileManager.default.contents(atPath: target)?.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        }

        @Test("draw - reads a spec from standard input; bytes that are not UTF-8 are refused with exit 2")
        func drawFromStdin() throws {
            let binary = try #require(Self.binary)
            func draw(_ input: Data) throws -> (Int32, String, String) {
                let process = Process()
                process.executableURL = binary
                process.arguments = ["draw", "-", "-o", "-"]
                let stdin = Pipe()
                let out = Pipe()
                let err = Pipe()
                process.standardInput = stdin
                process.standardOutput = out
                process.standardError = err
                try process.run()
                stdin.fileHandleForWriting.write(input)
                try stdin.fileHandleForWriting.close()
                let output = out.fileHandleForReading.readDataToEndOfFile()
                let errors = err.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
            }
            let good = try draw(Data("input: -a|\noperator: map(x + x)\n".utf8))
            #expect(good.0 == 0, "\(good.2)")
            #expect(good.1.contains("<desc>source: a at frame 1"))
            let bad = try draw(Data([0xFF, 0xFE, 0x41]))
            #expect(bad.0 == 2)
            #expect(bad.2.contains("<stdin>: error: the spec is not UTF-8 text"))
            #expect(bad.1.isEmpty)
        }

        @Test("draw answers a malformed input with exit 2 and a caret, writing nothing")
        func drawErrors() throws {
            let folder = NSTemporaryDirectory() + "marblegen-draw-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let target = folder + "/out.svg"
            let result = try run(["draw", "--input", "--a--(b", "-o", target])
            #expect(result.status == 2)
            #expect(result.errors.contains("<command line>:1:13: error: unclosed group"))
            #expect(result.errors.contains("            ^"))
            #expect(!FileManager.default.fileExists(atPath: target))
            let noExtension = try run(["draw", "--input", "-a|", "-o", folder + "/out.txt"])
            #expect(noExtension.status != 0)
            #expect(noExtension.errors.contains("needs a .svg, .png or .pdf extension"))
        }

        @Test("--help lists the commands and exits 0")
        func help() throws {
            let result = try run(["--help"])
            #expect(result.status == 0)
            #expect(result.output.contains("parse") && result.output.contains("verify"))
        }

        @Test("a diagram that starts with dashes parses, with or without --")
        func parseLeadingDashes() throws {
            for arguments in [["parse", "---a-|"], ["parse", "--", "---a-|"], ["parse", "--kind", "cold", "---a-|"]] {
                let result = try run(arguments)
                #expect(result.status == 0, "\(arguments): \(result.errors)")
                #expect(result.output.contains("3      next(a)"), "\(arguments): \(result.output)")
            }
        }

        @Test(
            "usage errors exit 2 with a reason",
            arguments: [
                (["verfy", "diagrams"], "did you mean the command 'verify'"),
                (["render", "--scale", "-1", "x.marble"], "--scale must be between"),
                (["render", "nothing-here.marble"], "no such file"),
                (["render", "--scale", "2", "--scale", "3"], "given twice"),
                (["parse", "--kind", "warm", "-a|"], "warm"),
                (["parse", "9223372036854775808ms"], "too long a time progression"),
            ])
        func usageErrors(arguments: [String], message: String) throws {
            let result = try run(arguments)
            #expect(result.status == 2)
            #expect(result.errors.contains(message), "\(result.errors)")
        }

        @Test("a missing input file is reported as FILE: error: …, without the usage text")
        func missingFile() throws {
            let result = try run(["render", "nothing-here.marble"])
            #expect(result.status == 2)
            #expect(result.errors == "nothing-here.marble: error: no such file or folder\n", "\(result.errors)")
        }

        @Test("an error in a line of millions of characters prints a bounded excerpt around the caret (was the whole line, ~10 MB)")
        func longLineExcerpt() throws {
            let spec = writeSpec("input: a" + String(repeating: "-", count: 5_000_000) + ")|\noperator: map(x)\n", name: "long.marble")
            let result = try run(["render", spec, "--output", temporaryFolder()])
            #expect(result.status == 2)
            #expect(result.errors.utf8.count < 1_000, "\(result.errors.utf8.count) bytes")
            let lines = result.errors.split(separator: "\n")
            #expect(lines.first?.contains("long.marble:1:5000009: error: ')' or ']' without an opening") == true, "\(result.errors)")
            // The caret stands under the ')' in the excerpt.
            if lines.count >= 3, let column = lines[2].firstIndex(of: "^") {
                let offset = lines[2].distance(from: lines[2].startIndex, to: column)
                #expect(Array(lines[1])[offset] == ")", "\(result.errors)")
            } else {
                Issue.record("no excerpt: \(result.errors)")
            }
        }

        @Test("--version answers")
        func version() throws {
            let result = try run(["--version"])
            #expect(result.status == 0)
            #expect(!result.output.isEmpty)
        }
    }
#endif
