import Foundation
import MarblegenCommands
import Testing

@testable import MarblePlayground

/// A fresh folder under the temporary directory, holding `files`; removed by `cleanUp`.
struct TemporaryFolder {
    let root: URL
    let served: URL

    init(_ files: [String: String] = [:]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("marbleplay-\(UUID().uuidString)")
        served = root.appendingPathComponent("specs")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        for (path, text) in files {
            let url = served.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
    }

    /// Every file under the root (served folder and its parent) with its contents.
    func snapshot() -> [String: Data] {
        var files: [String: Data] = [:]
        let walker = FileManager.default.enumerator(atPath: root.path)
        while let path = walker?.nextObject() as? String {
            if let data = FileManager.default.contents(atPath: root.appendingPathComponent(path).path) { files[path] = data }
        }
        return files
    }

    func cleanUp() { try? FileManager.default.removeItem(at: root) }
}

@Suite("Playground service: render, files, save")
struct PlaygroundServiceTests {
    @Test("a spec renders to an SVG whose description lists the real operator's output")
    func rendersSpec() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanUp() }
        let reply = PlaygroundService(folder: folder.served.path).render(
            "input: --1--2--|\noperator: map(x * 10)\n", format: .svg, theme: .auto)
        #expect(reply.status == 200)
        #expect(reply.contentType == "image/svg+xml")
        #expect(reply.text.contains("output: 10 at frame 2, 20 at frame 5, completes at frame 8."))
    }

    @Test("a spec error answers 422 with its line, column and the located message")
    func specErrorIsLocated() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanUp() }
        let reply = PlaygroundService(folder: folder.served.path).render("input: --1--|\noperator: mapp(x)\n", format: .svg, theme: .auto)
        #expect(reply.status == 422)
        let body = try JSONDecoder().decode(ErrorBody.self, from: Data(reply.body))
        #expect(body.line == 2)
        #expect(body.column == 11)
        #expect(body.error.hasPrefix("<editor>:2:11: error: unknown operator 'mapp'"))
        #expect(body.error.hasSuffix("\n    operator: mapp(x)\n              ^"))
    }

    @Test("the folder's specs are listed with subfolders, hidden files left out")
    func listsSpecs() throws {
        let folder = try TemporaryFolder(["b.marble": "x", "a/c.marble": "x", ".hidden/d.marble": "x", "notes.txt": "x"])
        defer { folder.cleanUp() }
        #expect(PlaygroundService(folder: folder.served.path).specFiles() == ["a/c.marble", "b.marble"])
    }

    @Test(
        "paths that leave the folder, hide or are not specs are refused",
        arguments: [
            "../escaped.marble", "a/../../escaped.marble", "/tmp/escaped.marble", "~/escaped.marble", ".hidden.marble",
            "a//b.marble", "./a.marble", "notes.txt", "a\\..\\b.marble", "", "link/escaped.marble",
        ])
    func refusesPathsOutside(_ path: String) throws {
        let folder = try TemporaryFolder(["a.marble": "input: -a-|\n"])
        defer { folder.cleanUp() }
        // A link inside the folder that points at its parent.
        try FileManager.default.createSymbolicLink(
            at: folder.served.appendingPathComponent("link"), withDestinationURL: folder.root)
        let before = folder.snapshot()
        let service = PlaygroundService(folder: folder.served.path)
        let reply = service.save(path, text: "input: -x-|\n")
        #expect(reply.status == 403, "\(reply.text)")
        #expect(service.read(path).status == 403)
        #expect(folder.snapshot() == before)
    }

    @Test("save replaces a spec atomically and leaves no temporary file")
    func savesAtomically() throws {
        let folder = try TemporaryFolder(["sub/a.marble": "old\n"])
        defer { folder.cleanUp() }
        let service = PlaygroundService(folder: folder.served.path)
        let reply = service.save("sub/a.marble", text: "input: -a-|\n")
        #expect(reply.status == 200)
        #expect(try JSONDecoder().decode(SavedBody.self, from: Data(reply.body)) == SavedBody(saved: "sub/a.marble", bytes: 12))
        #expect(service.read("sub/a.marble").text == "input: -a-|\n")
        #expect(Set(folder.snapshot().keys) == ["specs/sub/a.marble"])
    }

    @Test("save into a folder that does not exist is a 404 and creates nothing")
    func saveNeedsExistingFolder() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanUp() }
        let before = folder.snapshot()
        #expect(PlaygroundService(folder: folder.served.path).save("new/a.marble", text: "x").status == 404)
        #expect(folder.snapshot() == before)
    }

    @Test("the gallery holds every operator spec of diagrams/, in name order")
    func galleryHasEveryOperator() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanUp() }
        let entries = try JSONDecoder().decode(
            [GalleryEntry].self, from: Data(PlaygroundService(folder: folder.served.path).gallery().body))
        #expect(entries.count >= 80)
        #expect(entries.map(\.name) == entries.map(\.name).sorted())
        let map = try #require(entries.first { $0.name == "map" })
        #expect(map.spec.contains("operator: map("))
    }
}
