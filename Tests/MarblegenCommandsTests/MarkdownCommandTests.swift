#if Tools
    import Foundation
    import Testing

    /// `marblegen markdown`: the ```marble blocks of a Markdown file rendered beside it, through the binary.
    @Suite("marblegen markdown")
    struct MarkdownCommandTests {
        let binary = MarblegenBinaryTests()

        func folder(_ markdown: String) throws -> String {
            let folder = NSTemporaryDirectory() + "marblegen-md-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try markdown.write(toFile: folder + "/doc.md", atomically: true, encoding: .utf8)
            return folder
        }

        static let document = """
            # Doc

            ```marble
            title: map(x * 2)
            input: --1--2--|
            operator: map(x * 2)
            ```

            Text after.
            """

        @Test("renders each block, inserts its image link, then finds everything current")
        func rendersAndLinks() throws {
            let folder = try folder(Self.document)
            let first = try binary.run(["markdown", folder + "/doc.md", "--images", "pics"])
            #expect(first.status == 0, "\(first.errors)")
            let text = try String(contentsOfFile: folder + "/doc.md", encoding: .utf8)
            #expect(text.contains("```\n![map(x * 2)](pics/map-x-2.png)\n\nText after."))
            #expect(FileManager.default.contents(atPath: folder + "/pics/map-x-2.png")?.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
            let again = try binary.run(["markdown", folder + "/doc.md", "--images", "pics"])
            #expect(again.status == 0 && !again.output.contains("updated"), "\(again)")
            let check = try binary.run(["markdown", folder + "/doc.md", "--images", "pics", "--check"])
            #expect(check.status == 0, "\(check.errors)")
        }

        static let untitled = """
            # Doc

            ```marble
            input: --1--2--|
            operator: map(x * 2)
            ```

            Between.

            ```marble
            input: -a-b-|
            operator: take(1)
            ```
            """

        @Test("untitled blocks: a second run changes nothing, and --check passes right after a run (names came from line numbers)")
        func idempotent() throws {
            let folder = try folder(Self.untitled)
            let first = try binary.run(["markdown", folder + "/doc.md", "--images", "pics"])
            #expect(first.status == 0, "\(first.errors)")
            let afterFirst = try String(contentsOfFile: folder + "/doc.md", encoding: .utf8)
            let images = try FileManager.default.contentsOfDirectory(atPath: folder + "/pics").sorted()
            #expect(images.count == 2 && images.allSatisfy { $0.hasPrefix("diagram-") }, "\(images)")
            let check = try binary.run(["markdown", folder + "/doc.md", "--images", "pics", "--check"])
            #expect(check.status == 0, "\(check.errors)")
            let second = try binary.run(["markdown", folder + "/doc.md", "--images", "pics"])
            #expect(second.status == 0 && !second.output.contains("updated") && !second.output.contains("removed"), "\(second)")
            #expect(try String(contentsOfFile: folder + "/doc.md", encoding: .utf8) == afterFirst)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/pics").sorted() == images)
        }

        @Test("an untitled block's image keeps its name when text elsewhere changes; a changed block's old image is removed")
        func namesFromContent() throws {
            let folder = try folder(Self.untitled)
            _ = try binary.run(["markdown", folder + "/doc.md", "--images", "pics"])
            let images = try FileManager.default.contentsOfDirectory(atPath: folder + "/pics").sorted()
            // New text above both blocks: same names, nothing to do.
            let text = try String(contentsOfFile: folder + "/doc.md", encoding: .utf8)
            try text.replacingOccurrences(of: "# Doc\n", with: "# Doc\n\nA new paragraph.\nAnd another line.\n")
                .write(toFile: folder + "/doc.md", atomically: true, encoding: .utf8)
            let check = try binary.run(["markdown", folder + "/doc.md", "--images", "pics", "--check"])
            #expect(check.status == 0, "\(check.errors)")
            // The second block changes: its image gets a new name, the old one goes.
            let edited = try String(contentsOfFile: folder + "/doc.md", encoding: .utf8).replacingOccurrences(
                of: "take(1)", with: "take(2)")
            try edited.write(toFile: folder + "/doc.md", atomically: true, encoding: .utf8)
            let stale = try binary.run(["markdown", folder + "/doc.md", "--images", "pics", "--check"])
            #expect(stale.status == 1, "\(stale)")
            let run = try binary.run(["markdown", folder + "/doc.md", "--images", "pics"])
            #expect(run.status == 0 && run.output.contains("removed"), "\(run)")
            let now = try FileManager.default.contentsOfDirectory(atPath: folder + "/pics").sorted()
            #expect(now.count == 2 && now.contains(images[0]) != now.contains(images[1]), "\(images) → \(now)")
            // An image nothing names any more, left by an older version, is reported by --check.
            try Data([0x89]).write(to: URL(fileURLWithPath: folder + "/pics/diagram-16.png"))
            let orphan = try binary.run(["markdown", folder + "/doc.md", "--images", "pics", "--check"])
            #expect(orphan.status == 1 && orphan.errors.contains("unreferenced: \(folder)/pics/diagram-16.png"), "\(orphan)")
        }

        @Test("--check exits 1 naming a stale image or a missing link, and writes nothing")
        func checkFindsStale() throws {
            let folder = try folder(Self.document)
            _ = try binary.run(["markdown", folder + "/doc.md", "--images", "pics"])
            let edited = try String(contentsOfFile: folder + "/doc.md", encoding: .utf8).replacingOccurrences(
                of: "--1--2--|", with: "--1--3--|")
            try edited.write(toFile: folder + "/doc.md", atomically: true, encoding: .utf8)
            let stale = try binary.run(["markdown", folder + "/doc.md", "--images", "pics", "--check"])
            #expect(stale.status == 1 && stale.errors.contains("stale: \(folder)/pics/map-x-2.png"), "\(stale)")
            try Self.document.write(toFile: folder + "/doc.md", atomically: true, encoding: .utf8)
            let unlinked = try binary.run(["markdown", folder + "/doc.md", "--images", "pics", "--check"])
            #expect(unlinked.status == 1 && unlinked.errors.contains("doc.md:8: the image link"), "\(unlinked)")
            #expect(try String(contentsOfFile: folder + "/doc.md", encoding: .utf8) == Self.document)
        }

        @Test("a broken spec is an error at its line in the Markdown file, with a caret; nothing is written")
        func brokenSpec() throws {
            let folder = try folder(Self.document.replacingOccurrences(of: "operator: map(x * 2)", with: "operator: nosuchop"))
            let result = try binary.run(["markdown", folder + "/doc.md", "--images", "pics"])
            #expect(result.status == 2)
            #expect(result.errors.contains("doc.md:6:11: error: unknown operator 'nosuchop'"), "\(result.errors)")
            #expect(result.errors.contains("    operator: nosuchop\n              ^"), "\(result.errors)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/pics"))
        }

        @Test("a marble block without a closing fence is an error at its line (exit 2), not a crash; nothing is written")
        func unterminatedBlock() throws {
            let text = "# Doc\n\n```marble\ninput: --a|\noperator: map(x)\n"
            let folder = try folder(text)
            let result = try binary.run(["markdown", folder + "/doc.md", "--images", "pics"])
            #expect(result.status == 2)
            #expect(result.errors.contains("doc.md:3: error: this ```marble block has no closing ``` fence"), "\(result.errors)")
            #expect(try String(contentsOfFile: folder + "/doc.md", encoding: .utf8) == text)
            #expect(!FileManager.default.fileExists(atPath: folder + "/pics"))
        }
    }
#endif
