import Atomics
import Foundation

/// The theme choice of the command line: a fixed theme, or `auto` (SVG follows the reader's
/// light/dark preference; PNG and PDF use light).
package enum ThemeChoice: String, CaseIterable, Sendable {
    /// The colour theme: fixed light or dark, or (SVG) following the reader's `prefers-color-scheme`.
    case light, dark, auto
}

/// What a command printed and how it ended: 0 ok, 1 a check or verification failed, 2 bad input.
package struct CommandResult: Sendable, Equatable {
    /// `0` on success, `1` when a check or verification failed, `2` on bad input.
    package var exitCode: Int32
    /// What the command prints on standard output.
    package var output: String
    /// What the command prints on standard error.
    package var errors: String

    mutating func fail(_ code: Int32, _ message: String) {
        exitCode = max(exitCode, code)
        errors += message.hasSuffix("\n") ? message : message + "\n"
    }

    /// A problem worth knowing that does not change the exit code.
    mutating func warn(_ message: String) {
        errors += message.hasSuffix("\n") ? message : message + "\n"
    }

    mutating func say(_ message: String) {
        output += message.hasSuffix("\n") ? message : message + "\n"
    }
}

/// The `marblegen` commands as a library, so that they are tested without a process.
package struct Marblegen: Sendable {
    /// The formats `render` writes for each spec.
    package var formats: [OutputFormat] = [.png, .svg]
    /// The colour theme, unless a spec's `style: theme = …` chooses one.
    package var theme: ThemeChoice = .auto
    /// Pixels per point for PNG output (2 for high-density screens).
    package var scale: Double = 2
    /// The font family for labels; `render` fails early when fontconfig cannot find it.
    package var fontFamily: String = "DejaVu Sans"
    /// How labels are shaped: Pango with font fallback (CJK, emoji) or Cairo's one-font toy API.
    package var textEngine: TextEngine = .pango

    /// The defaults: PNG and SVG, automatic theme, scale 2, DejaVu Sans.
    package init() {}

    /// The folder `render` uses without arguments.
    package static let galleryDirectory = "diagrams"

    // The work each command shares: loading specs, rendering one, naming files, making folders and writing files.
    /// Creates `path` and its missing parents; on failure, which folder refused and the system's reason.
    static func createFolder(_ path: String) -> String? {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            return isDirectory.boolValue ? nil : "'\(path)' is a file, not a folder"
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path, let problem = createFolder(parent) { return problem }
        if mkdir(path, 0o755) == 0 || errno == EEXIST { return nil }
        let reason = String(cString: strerror(errno))
        let place = parent.isEmpty ? "the current folder" : "'\(parent)'"
        // ENOENT with an existing parent: a virtual file system such as /proc that takes no folders.
        let hint = errno == ENOENT ? " (\(place) does not accept new folders)" : ""
        return "\(place) refused a new folder '\((path as NSString).lastPathComponent)': \(reason)\(hint)"
    }

    enum Outcome {
        case success([(OutputFormat, [UInt8])], warnings: [String])
        case failure(String)
    }

    /// Renders every spec; both cores share the work, each task with its own Cairo surfaces.
    func renderAll(_ specs: [String], renderer: CairoRenderer) -> [Outcome] {
        let results = ResultSlots<Outcome>(count: specs.count)
        let formats = self.formats
        let theme = self.theme
        let scale = self.scale
        let fontFamily = self.fontFamily
        DispatchQueue.concurrentPerform(iterations: specs.count) { index in
            let path = specs[index]
            results[index] = Self.renderOne(path, renderer: renderer, formats: formats, theme: theme, scale: scale, fontFamily: fontFamily)
        }
        return results.values
    }

    static func renderOne(
        _ path: String, renderer: CairoRenderer, formats: [OutputFormat], theme: ThemeChoice, scale: Double, fontFamily: String
    ) -> Outcome {
        let spec: DiagramSpec
        let model: DiagramModel
        switch loadSpec(path) {
        case .failure(let failure): return .failure(failure.message)
        case .success(let loaded): (spec, model) = loaded
        }
        let list = DiagramLayout(style: spec.style, measurer: CairoTextMeasurer(fontFamily: fontFamily, textEngine: renderer.textEngine))
            .layout(model)
        var files: [(OutputFormat, [UInt8])] = []
        for format in formats {
            // A spec's own `style: theme = …` wins over the command line's theme.
            let chosen = spec.style.theme.flatMap(Theme.named) ?? (theme == .dark ? .dark : .light)
            let auto = theme == .auto && format == .svg && spec.style.theme == nil
            do {
                files.append((format, try renderer.render(list, format: format, theme: chosen, scale: scale, autoTheme: auto)))
            } catch {
                return .failure("\(path): error: \(error)")
            }
        }
        var warnings = renderer.textsWithoutGlyphs(in: list).map(Self.glyphWarning)
        // Drawn all the same (the picture shows what the operator computes); `verify` fails on it.
        if let mismatch = model.mismatchMessage { warnings.append(Self.mismatchWarning(mismatch)) }
        return .success(files, warnings: warnings)
    }

    /// A spec whose `expected:` line does not hold, as `render` says it.
    static func mismatchWarning(_ message: String) -> String {
        "warning: the expected output does not hold (drawn as the operator computes it; marblegen verify fails on it)\n"
            + message.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
    }

    /// Text that would draw as empty boxes: which, and how to fix it.
    static func glyphWarning(_ text: String) -> String {
        "warning: no installed font has glyphs for some of '\(text)' (drawn as empty boxes); "
            + "install fonts-noto-color-emoji and fonts-wqy-microhei (make deps does), or choose a font with --font"
    }

    struct LoadFailure: Error { var message: String }

    static func loadSpec(_ path: String) -> Result<(DiagramSpec, DiagramModel), LoadFailure> {
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(LoadFailure(message: "error: cannot read \(path)"))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return .failure(LoadFailure(message: "\(path): error: the file is not UTF-8 text"))
        }
        do {
            let spec = try DiagramSpec.parse(text, file: path)
            return .success((spec, try DiagramRunner.run(spec)))
        } catch {
            return .failure(LoadFailure(message: error.description))
        }
    }

    /// Expands folders into their `*.marble` files (sorted); reports paths that do not exist.
    func collectSpecs(_ paths: [String]) -> ([String], [String]) {
        var specs: [String] = []
        var problems: [String] = []
        let fm = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                problems.append("error: no such file or folder: \(path)")
                continue
            }
            if isDirectory.boolValue {
                let names = (try? fm.contentsOfDirectory(atPath: path)) ?? []
                let found = names.filter { $0.hasSuffix(".marble") }.sorted().map { (path as NSString).appendingPathComponent($0) }
                if found.isEmpty { problems.append("error: no *.marble specs in \(path)") }
                specs += found
            } else if path.hasSuffix(".marble") {
                specs.append(path)
            } else {
                problems.append("error: \(path) is not a .marble spec")
            }
        }
        return (specs, problems)
    }

    static func outputName(_ spec: String, _ format: OutputFormat) -> String {
        ((spec as NSString).lastPathComponent as NSString).deletingPathExtension + "." + format.rawValue
    }

    /// Writes to a temporary file beside the target, then renames it over the target: a
    /// failure never leaves half a file.
    /// Numbers temporary files, so that concurrent writes of one path (a server saving) never share one.
    private static let temporaryCounter = ManagedAtomic<Int>(0)

    static func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary =
            (directory.isEmpty ? "." : directory) + "/." + (path as NSString).lastPathComponent
            + ".\(getpid()).\(temporaryCounter.wrappingIncrementThenLoad(by: 1, ordering: .relaxed)).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) else {
            throw WriteError(reason: "cannot create \(temporary) (is the folder writable?)")
        }
        if rename(temporary, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw WriteError(reason: reason)
        }
    }

    struct WriteError: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }
}

/// Slots filled from concurrent iterations, each written once under a lock.
final class ResultSlots<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Value?]
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    subscript(index: Int) -> Value? {
        get { lock.withLock { slots[index] } }
        set { lock.withLock { slots[index] = newValue } }
    }
    var values: [Value] { lock.withLock { slots.map { $0! } } }
}

/// What `marblegen` and `marbleplay` print, and exit 2 with, when built without the package's
/// Tools trait (their argument parsing is behind it).
package func exitForMissingToolsTrait(_ program: String) -> Never {
    let message = """
        \(program) is built with the package's Tools trait (swift-argument-parser and FlyingFox stay unfetched \
        without it): `swift build --traits Tools --product \(program)` here, or \
        `.package(url: …, from: …, traits: ["Tools"])` in a package that depends on Marbles

        """
    FileHandle.standardError.write(Data(message.utf8))
    exit(2)
}
