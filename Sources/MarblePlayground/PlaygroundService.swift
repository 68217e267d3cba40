package import Foundation
package import MarblegenCommands

/// What the playground does, apart from HTTP: render spec text, list, read and save the served
/// folder's specs, and hand out the gallery. Every answer is a ``PlaygroundReply``, so the
/// server only translates.
package struct PlaygroundService: Sendable {
    /// The folder whose `.marble` files are listed and saved; nothing outside it is touched.
    package let folder: URL
    /// The renderer's settings (font, text engine); formats and theme come per request.
    package var marblegen = Marblegen()

    /// Serves `folder` (made absolute and free of symbolic links).
    package init(folder: String) {
        self.folder = URL(fileURLWithPath: folder).standardizedFileURL.resolvingSymlinksInPath()
    }

    // MARK: render

    /// Renders spec text; a spec error answers 422 with its line, column and the located message.
    package func render(_ text: String, format: OutputFormat, theme: ThemeChoice) -> PlaygroundReply {
        var drawer = marblegen
        drawer.theme = theme
        switch drawer.draw(text, source: "<editor>", format: format) {
        case .success(let bytes):
            return PlaygroundReply(status: 200, contentType: format.contentType, body: bytes)
        case .failure(let failure):
            return .error(failure.line == nil ? 500 : 422, failure.message, line: failure.line, column: failure.column)
        }
    }

    // MARK: files

    /// The `.marble` files of the folder and its subfolders, as paths relative to it, sorted.
    package func specFiles() -> [String] {
        let root = folder.path
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var found: [String] = []
        while let path = walker.nextObject() as? String {
            let name = (path as NSString).lastPathComponent
            if name.hasPrefix(".") || name == "node_modules" {
                walker.skipDescendants()
                continue
            }
            if path.hasSuffix(".marble") { found.append(path) }
        }
        return found.sorted()
    }

    /// Where `relative` lives inside the folder, or why it may not be used: absolute paths,
    /// `..`, hidden components, anything not ending in `.marble`, and symbolic links that lead
    /// out of the folder are refused.
    package func resolve(_ relative: String) -> Result<URL, PlaygroundReply> {
        func refuse(_ why: String) -> Result<URL, PlaygroundReply> { .failure(.error(403, "refused '\(relative)': \(why)")) }
        if relative.isEmpty || relative.utf8.count > 1_024 { return refuse("the path must have 1 to 1024 bytes") }
        if relative.hasPrefix("/") || relative.hasPrefix("~") { return refuse("the path must be relative to the served folder") }
        let components = relative.split(separator: "/", omittingEmptySubsequences: false)
        if components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." || $0.hasPrefix(".") }) {
            return refuse("the path may not contain empty, '.', '..' or hidden components")
        }
        if relative.contains("\0") || relative.contains("\\") { return refuse("the path may not contain NUL or backslashes") }
        guard relative.hasSuffix(".marble") else { return refuse("only .marble files are served and saved") }
        let target = folder.appendingPathComponent(relative)
        // Existing parts may be links: the real place (its folder's, and the file's when it
        // exists) must still be inside the served folder.
        guard let parent = realpath(target.deletingLastPathComponent().path, nil) else {
            return .failure(.error(404, "no folder for '\(relative)' in the served folder"))
        }
        defer { free(parent) }
        var real = URL(fileURLWithPath: String(cString: parent)).appendingPathComponent(target.lastPathComponent)
        if let file = realpath(real.path, nil) {
            real = URL(fileURLWithPath: String(cString: file))
            free(file)
        }
        guard real.path.hasPrefix(folder.path + "/") else { return refuse("it leads outside the served folder") }
        return .success(real)
    }

    /// The text of a spec in the folder.
    package func read(_ relative: String) -> PlaygroundReply {
        let url: URL
        switch resolve(relative) {
        case .failure(let reply): return reply
        case .success(let resolved): url = resolved
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            return .error(404, "no spec '\(relative)' in the served folder")
        }
        guard String(data: data, encoding: .utf8) != nil else { return .error(422, "'\(relative)' is not UTF-8 text") }
        return PlaygroundReply(status: 200, contentType: "text/plain; charset=utf-8", body: Array(data))
    }

    /// Writes `text` to a spec in the folder atomically (a temporary file renamed over it), so
    /// a reader never sees half a file; its folder must exist already (404 otherwise).
    package func save(_ relative: String, text: String) -> PlaygroundReply {
        let url: URL
        switch resolve(relative) {
        case .failure(let reply): return reply
        case .success(let resolved): url = resolved
        }
        do {
            try Marblegen.write(Array(text.utf8), to: url.path)
        } catch {
            return .error(500, "cannot write '\(relative)': \(error)")
        }
        return .json(200, SavedBody(saved: relative, bytes: text.utf8.count))
    }

    // MARK: gallery

    /// The gallery's operators (name and spec text, in name order) as JSON.
    package func gallery() -> PlaygroundReply { .json(200, GallerySpecs.all.map { GalleryEntry(name: $0.name, spec: $0.spec) }) }

    /// The folder's specs as JSON: `{"folder": …, "files": […]}`.
    package func files() -> PlaygroundReply { .json(200, FileList(folder: folder.path, files: specFiles())) }
}

extension OutputFormat {
    /// The media type of a rendered file.
    var contentType: String {
        switch self {
        case .svg: "image/svg+xml"
        case .png: "image/png"
        case .pdf: "application/pdf"
        }
    }
}

/// An HTTP answer without HTTP: status, media type and body.
package struct PlaygroundReply: Error, Sendable, Equatable {
    /// The HTTP status code.
    package var status: Int
    /// The `Content-Type`.
    package var contentType: String
    /// The bytes sent.
    package var body: [UInt8]

    /// Creates a reply.
    package init(status: Int, contentType: String, body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }

    /// The body as text (for tests and logs).
    package var text: String { String(decoding: body, as: UTF8.self) }

    /// A JSON reply (keys sorted, so answers are stable).
    static func json(_ status: Int, _ value: some Encodable) -> PlaygroundReply {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Our reply types are plain structs of strings and numbers: encoding cannot fail.
        let body = (try? encoder.encode(value)).map(Array.init) ?? Array(#"{"error":"cannot encode the reply"}"#.utf8)
        return PlaygroundReply(status: status, contentType: "application/json", body: body)
    }

    /// `{"error": message}` with `status`, and the place of a spec error.
    static func error(_ status: Int, _ message: String, line: Int? = nil, column: Int? = nil) -> PlaygroundReply {
        .json(status, ErrorBody(error: message, line: line, column: column))
    }
}

/// The body of every 4xx and 5xx reply.
struct ErrorBody: Codable, Equatable {
    var error: String
    var line: Int?
    var column: Int?
}

/// The body of a successful save.
struct SavedBody: Codable, Equatable {
    var saved: String
    var bytes: Int
}

/// The served folder's specs.
struct FileList: Codable, Equatable {
    var folder: String
    var files: [String]
}

/// One gallery operator.
struct GalleryEntry: Codable, Equatable {
    var name: String
    var spec: String
}
