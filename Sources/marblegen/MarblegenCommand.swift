public import ArgumentParser
import Foundation
public import MarbleRender

@main
struct MarblegenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "marblegen",
        abstract: "Marble diagrams computed from real operators, rendered through Cairo.",
        discussion: "Exit codes: 0 ok, 1 a check or verification failed, 2 bad input.",
        subcommands: [Render.self, Check.self, Verify.self, Parse.self, Operators.self],
        defaultSubcommand: Render.self)

    /// Like ArgumentParser's `main()`, but a usage error exits 2 (bad input), as the other
    /// commands' input errors do, instead of 64.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                print(message)
                Foundation.exit(0)
            }
            FileHandle.standardError.write(Data((message + "\n").utf8))
            Foundation.exit(2)
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
    var theme: ThemeChoice = .auto

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
        generator.theme = theme
        generator.scale = scale
        generator.fontFamily = font
        return generator
    }
}

extension ThemeChoice: ExpressibleByArgument {}

/// Prints a result and exits with its code.
func finish(_ result: CommandResult) -> Never {
    if !result.output.isEmpty { FileHandle.standardOutput.write(Data(result.output.utf8)) }
    if !result.errors.isEmpty { FileHandle.standardError.write(Data(result.errors.utf8)) }
    exit(result.exitCode)
}

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render specs (files or folders of *.marble); with none, the gallery in diagrams/.")

    @Argument(help: "Spec files or folders.")
    var paths: [String] = []

    @Option(name: .shortAndLong, help: "Output folder (default: beside each spec).")
    var output: String?

    @OptionGroup var drawing: DrawingOptions

    func run() throws {
        finish(drawing.generator.render(paths, outputDirectory: output))
    }
}

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Exit 1 listing renders in a folder that are stale or missing.")

    @Argument(help: "The folder of specs and renders.")
    var directory: String = Marblegen.galleryDirectory

    @OptionGroup var drawing: DrawingOptions

    func run() throws {
        finish(drawing.generator.check(directory))
    }
}

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check the specs' expected outputs against the real operators.")

    @Argument(help: "Spec files or folders.")
    var paths: [String] = [Marblegen.galleryDirectory]

    func run() throws {
        finish(Marblegen().verify(paths))
    }
}

struct Parse: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print a marble diagram's events, or its error with a caret.")

    // Diagrams usually start with "-": take words the parser does not know as the diagram.
    @Argument(parsing: .allUnrecognized, help: "The diagram, e.g. \"--a-(bc)-|\".")
    var diagram: [String] = []

    @Option(help: "cold, hot, expected or subscription.")
    var kind: String = "cold"

    func run() throws {
        guard !diagram.isEmpty else { throw ValidationError("give a diagram, e.g. marblegen parse \"--a-(bc)-|\"") }
        finish(Marblegen.parse(diagram.joined(separator: " "), kind: kind))
    }
}

struct Operators: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the operators specs may use.")

    func run() throws {
        finish(Marblegen.operators())
    }
}
