#if Tools
    import ArgumentParser
    import Foundation
    import MarblegenCommands

    @main
    struct MarblegenCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "marblegen",
            abstract: "Marble diagrams computed from real operators, rendered through Cairo.",
            discussion: "Exit codes: 0 ok, 1 a check or verification failed, 2 bad input.",
            version: "0.2.0",
            subcommands: [Render.self, Draw.self, Check.self, Verify.self, Parse.self, Operators.self, Markdown.self],
            defaultSubcommand: Render.self)

        /// Like ArgumentParser's `main()`, but a usage error exits 2 (bad input), as the other
        /// commands' input errors do, instead of 64; and arguments are read as users type them
        /// (see ``CommandLineArguments``).
        static func main() {
            do {
                let arguments = try CommandLineArguments.normalized(Array(CommandLine.arguments.dropFirst()))
                var command = try parseAsRoot(arguments)
                try command.run()
            } catch {
                let code = exitCode(for: error)
                let message = fullMessage(for: error)
                if code == .success {
                    if !message.isEmpty { print(message) }
                    Foundation.exit(0)
                }
                if !message.isEmpty { FileHandle.standardError.write(Data((message + "\n").utf8)) }
                // Our own commands exit with their code; ArgumentParser's usage errors with 2.
                Foundation.exit(error is ExitCode ? code.rawValue : 2)
            }
        }
    }

    /// Options shared by the commands that draw.
    struct DrawingOptions: ParsableArguments {
        @Option(
            name: .long, help: "Comma-separated formats: png, svg, pdf.",
            transform: { text in
                try text.split(separator: ",").map { part in
                    guard let format = OutputFormat(rawValue: part.trimmingCharacters(in: .whitespaces).lowercased()) else {
                        throw ValidationError("unknown format '\(part)' (png, svg, pdf)")
                    }
                    return format
                }
            })
        var format: [OutputFormat] = [.png, .svg]

        @Option(help: "light, dark, or auto (SVG follows the reader's preference; PNG and PDF use light).")
        var theme: ThemeArgument = .auto

        @Option(help: "PNG scale factor.")
        var scale: Double = 2

        @Option(help: "Font family, resolved through fontconfig.")
        var font: String = "DejaVu Sans"

        func validate() throws {
            guard (0.25...8).contains(scale) else { throw ValidationError("--scale must be between 0.25 and 8") }
            guard !format.isEmpty else { throw ValidationError("--format needs at least one format") }
        }

        var generator: Marblegen {
            var generator = Marblegen()
            generator.formats = format
            generator.theme = theme.choice
            generator.scale = scale
            generator.fontFamily = font
            return generator
        }
    }

    /// `--theme`'s choices (the library's ``ThemeChoice``, as an argument).
    enum ThemeArgument: String, ExpressibleByArgument, CaseIterable {
        case light, dark, auto
        var choice: ThemeChoice { ThemeChoice(rawValue: rawValue) ?? .auto }
    }

    /// `parse --kind`'s choices.
    enum KindArgument: String, ExpressibleByArgument, CaseIterable {
        case cold, hot, expected, subscription
        var kind: Marblegen.ParseKind { Marblegen.ParseKind(rawValue: rawValue) ?? .cold }
    }

    /// Prints a result; a non-zero code ends the command with it.
    func finish(_ result: CommandResult) throws {
        if !result.output.isEmpty { FileHandle.standardOutput.write(Data(result.output.utf8)) }
        if !result.errors.isEmpty { FileHandle.standardError.write(Data(result.errors.utf8)) }
        if result.exitCode != 0 { throw ExitCode(result.exitCode) }
    }

    /// Fails (exit 2) unless every path names an existing file or folder, in the `file: error: …`
    /// form of every other input error, without the usage text; a word that is close to a command
    /// name (`verfy`) says so.
    func requireExisting(_ paths: [String]) throws {
        for path in paths where !FileManager.default.fileExists(atPath: path) {
            let commands = ["render", "draw", "check", "verify", "parse", "operators"]
            let hint = commands.first { EditDistance.between($0, path) <= 2 }.map { " (did you mean the command '\($0)'?)" } ?? ""
            FileHandle.standardError.write(Data("\(path): error: no such file or folder\(hint)\n".utf8))
            throw ExitCode(2)
        }
    }

    /// Fails with a usage error when `path` cannot be an output folder.
    func requireWritableFolder(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw ValidationError("output '\(path)' is a file, not a folder") }
            guard FileManager.default.isWritableFile(atPath: path) else { throw ValidationError("output folder '\(path)' is not writable") }
            return
        }
        var parent = (path as NSString).deletingLastPathComponent
        while !parent.isEmpty, !FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory) {
            parent = (parent as NSString).deletingLastPathComponent
        }
        let existing = parent.isEmpty ? "." : parent
        _ = FileManager.default.fileExists(atPath: existing, isDirectory: &isDirectory)
        guard isDirectory.boolValue else { throw ValidationError("cannot create output folder '\(path)': '\(existing)' is a file") }
        guard FileManager.default.isWritableFile(atPath: existing) else {
            throw ValidationError("cannot create output folder '\(path)': '\(existing)' is not writable")
        }
    }

    struct Render: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render specs (files or folders of *.marble); with none, the gallery in diagrams/.")

        @Argument(help: "Spec files or folders.")
        var paths: [String] = []

        @Option(name: .shortAndLong, help: "Output folder (default: beside each spec).")
        var output: String?

        @OptionGroup var drawing: DrawingOptions

        func validate() throws {
            try requireExisting(paths)
            if let output { try requireWritableFolder(output) }
        }

        func run() throws {
            try finish(drawing.generator.render(paths, outputDirectory: output))
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Exit 1 listing renders in a folder that are stale or missing.")

        @Argument(help: "The folder of specs and renders.")
        var directory: String = Marblegen.galleryDirectory

        @OptionGroup var drawing: DrawingOptions

        func validate() throws {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
                throw ValidationError("no such folder: '\(directory)'")
            }
            guard isDirectory.boolValue else {
                throw ValidationError(
                    "check takes a folder of specs and their renders; '\(directory)' is a file (use `marblegen verify \(directory)`)")
            }
        }

        func run() throws {
            try finish(drawing.generator.check(directory))
        }
    }

    struct Markdown: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render the ```marble blocks of a Markdown file into images and keep the link after each block current.",
            discussion: """
                marblegen markdown README.md --images docs/readme           (writes the images, rewrites the links)
                marblegen markdown README.md --images docs/readme --check   (exit 1 when an image or link is stale)
                """)

        @Argument(help: "The Markdown file.")
        var file: String

        @Option(help: "The folder for the images, relative to the Markdown file's folder.")
        var images: String = "images"

        @Flag(help: "Write nothing; exit 1 when an image or a link is missing or out of date.")
        var check = false

        @OptionGroup var drawing: DrawingOptions

        func validate() throws {
            try requireExisting([file])
        }

        func run() throws {
            // One image per block: PNG unless one other format is named.
            let format = drawing.format.count == 1 ? drawing.format[0] : .png
            try finish(drawing.generator.markdown(file, imageDirectory: images, format: format, check: check))
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check the specs' expected outputs against the real operators.")

        @Argument(help: "Spec files or folders.")
        var paths: [String] = [Marblegen.galleryDirectory]

        func validate() throws { try requireExisting(paths) }

        func run() throws {
            try finish(Marblegen().verify(paths))
        }
    }

    struct Parse: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a marble diagram's events, or its error with a caret.")

        // Diagrams usually start with "-"; `CommandLineArguments` puts them after a `--`.
        @Argument(parsing: .postTerminator, help: "The diagram, e.g. \"--a-(bc)-|\" (dashes first are fine).")
        var diagram: [String] = []

        @Option(help: "The kind of diagram.")
        var kind: KindArgument = .cold

        func validate() throws {
            guard !diagram.isEmpty else { throw ValidationError("give a diagram, e.g. marblegen parse \"--a-(bc)-|\"") }
        }

        func run() throws {
            try finish(Marblegen.parse(diagram.joined(separator: " "), kind: kind.kind))
        }
    }

    struct Operators: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the operators specs may use.")

        func run() throws {
            try finish(Marblegen.operators())
        }
    }

    struct Draw: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Draw one diagram without a spec file: inputs and an operator from the command line, or a spec on stdin.",
            discussion: """
                marblegen draw --input "--a--b|" --operator "map(x * 2)" -o out.svg
                marblegen draw --input "-a--b|" --input "--1-2|" --operator combineLatest -o - > out.svg
                marblegen draw - -o out.png < spec.marble
                """)

        @Argument(help: "'-' to read a whole spec from standard input instead of --input/--operator.")
        var stdin: String?

        @Option(name: .customLong("input"), parsing: .unconditionalSingleValue, help: "An input diagram; repeat for more inputs.")
        var inputs: [String] = []

        @Option(name: .customLong("operator"), parsing: .unconditional, help: "The operator, as in a spec's operator: line.")
        var call: String?

        @Option(name: .shortAndLong, help: "Output file (.svg, .png or .pdf), or '-' for SVG on standard output.")
        var output: String

        @OptionGroup var drawing: DrawingOptions

        func validate() throws {
            if let stdin, stdin != "-" { throw ValidationError("the only argument draw takes is '-' (a spec on standard input)") }
            if stdin == nil, inputs.isEmpty {
                throw ValidationError("draw needs at least one --input, or '-' and a spec on standard input")
            }
            if stdin != nil, !inputs.isEmpty || call != nil { throw ValidationError("give either '-' or --input/--operator, not both") }
            if output != "-", format(of: output) == nil {
                throw ValidationError("the output '\(output)' needs a .svg, .png or .pdf extension (or '-' for SVG on standard output)")
            }
        }

        func format(of path: String) -> OutputFormat? {
            OutputFormat(rawValue: (path as NSString).pathExtension.lowercased())
        }

        func run() throws {
            let text: String
            let source: String
            if stdin != nil {
                guard let read = String(data: FileHandle.standardInput.readDataToEndOfFile(), encoding: .utf8) else {
                    FileHandle.standardError.write(Data("<stdin>: error: the spec is not UTF-8 text\n".utf8))
                    throw ExitCode(2)
                }
                text = read
                source = "<stdin>"
            } else {
                text = Marblegen.drawSpec(inputs: inputs, operator: call)
                source = "<command line>"
            }
            switch drawing.generator.draw(text, source: source, format: output == "-" ? .svg : format(of: output) ?? .svg) {
            case .failure(let failure):
                FileHandle.standardError.write(Data((failure.message + "\n").utf8))
                throw ExitCode(2)
            case .success(let bytes):
                if output == "-" {
                    FileHandle.standardOutput.write(Data(bytes))
                } else {
                    do { try Marblegen.write(bytes, to: output) } catch {
                        FileHandle.standardError.write(Data("error: cannot write \(output): \(error)\n".utf8))
                        throw ExitCode(2)
                    }
                }
            }
        }
    }
#else
    import MarblegenCommands

    /// Built without the Tools trait: says how to get the real program.
    @main
    enum MarblegenCommand {
        static func main() { exitForMissingToolsTrait("marblegen") }
    }
#endif
