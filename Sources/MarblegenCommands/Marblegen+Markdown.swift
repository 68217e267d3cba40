internal import Foundation

extension Marblegen {
    /// A fenced code block of a Markdown file whose info string is `marble` and the image link that follows it.
    struct MarkdownBlock {
        /// The 1-based line of the opening fence.
        var line: Int
        /// The spec text between the fences.
        var spec: String
        /// The index (in the file's lines) right after the closing fence.
        var after: Int
        /// The spec's title, for the image's name and alt text.
        var title: String?
    }

    /// Renders each fenced `marble` code block of the Markdown file at `path` into an image in
    /// `imageDirectory` (relative to the file's folder) and keeps the image link on the line after
    /// the block current (`![title](images/name.png)`, inserted if missing); with `check`, writes
    /// nothing and exits 1 when an image or a link is missing or out of date. A broken spec is an
    /// error at its line in the Markdown file (exit 2); nothing is written then.
    package func markdown(_ path: String, imageDirectory: String, format: OutputFormat = .png, check: Bool) -> CommandResult {
        var result = CommandResult(exitCode: 0, output: "", errors: "")
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            result.fail(2, "error: cannot read \(path) as UTF-8 text")
            return result
        }
        var lines = text.components(separatedBy: "\n")
        let (blocks, unterminated) = Self.marbleBlocks(in: lines)
        if let unterminated {
            result.fail(2, "\(path):\(unterminated): error: this ```marble block has no closing ``` fence")
            return result
        }
        if blocks.isEmpty {
            result.fail(2, "\(path): error: no ```marble blocks")
            return result
        }
        var replaced: [String] = []
        let images = renderBlocks(
            blocks, of: path, into: imageDirectory, format: format, check: check, lines: &lines, replacedLinks: &replaced, result: &result)
        guard result.exitCode != 2, Self.store(images, check: check, result: &result) else { return result }
        let rewritten = lines.joined(separator: "\n")
        Self.sweepOrphans(
            of: path, linkedIn: rewritten, in: imageDirectory, format: format, replaced: replaced, check: check, result: &result)
        if check {
            if result.exitCode == 0 {
                result.say("\(path): \(blocks.count) marble block(s), every image and link up to date")
            } else {
                result.fail(1, "\(path) is out of date: run marblegen markdown \(path) --images \(imageDirectory)")
            }
        } else if rewritten != text {
            do {
                try Self.writeAtomically(Array(rewritten.utf8), to: path)
                result.say("updated the image links in \(path)")
            } catch {
                result.fail(2, "error: cannot write \(path): \(error)")
            }
        }
        return result
    }

    /// Renders each block and puts (or, with `check`, checks) its link in `lines`; returns the
    /// images, in the blocks' order.
    private func renderBlocks(
        _ blocks: [MarkdownBlock], of path: String, into imageDirectory: String, format: OutputFormat, check: Bool,
        lines: inout [String], replacedLinks: inout [String], result: inout CommandResult
    ) -> [(path: String, bytes: [UInt8])] {
        let folder = (path as NSString).deletingLastPathComponent
        var images: [(path: String, bytes: [UInt8])] = []
        var usedNames: Set<String> = []
        // Named by title, else by content: a name that text elsewhere in the file cannot change.
        let names = blocks.map { Self.uniqueName($0.title ?? Self.contentName($0.spec), taken: &usedNames) }
        // From the last block up, so that inserting a link line keeps earlier indices valid.
        for (block, name) in zip(blocks, names).reversed() {
            let relative = (imageDirectory as NSString).appendingPathComponent(name + "." + format.rawValue)
            switch draw(block.spec, source: path, format: format) {
            case .failure(let failure):
                result.fail(2, Self.shift(failure, in: path, by: block.line))
            case .success(let bytes):
                images.insert(((folder.isEmpty ? relative : (folder as NSString).appendingPathComponent(relative)), bytes), at: 0)
                let link = "![\(block.title ?? name)](\(relative))"
                let existing = block.after < lines.count ? lines[block.after] : nil
                if existing == link { continue }
                if check {
                    result.fail(1, "\(path):\(block.after + 1): the image link after the marble block at line \(block.line) is not \(link)")
                } else if let existing, existing.hasPrefix("!["), existing.contains("(\(imageDirectory)/") {
                    lines[block.after] = link
                    // The image the old link named goes once nothing names it (a renamed title).
                    if let open = existing.lastIndex(of: "("), existing.hasSuffix(")") {
                        replacedLinks.append(String(existing[existing.index(after: open)..<existing.index(before: existing.endIndex)]))
                    }
                } else {
                    lines.insert(link, at: block.after)
                }
            }
        }
        return images
    }

    /// An untitled block's image name: `diagram-` and a hash of its spec (FNV-1a, 64 bits),
    /// the same on every run and platform.
    static func contentName(_ spec: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in spec.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return "diagram-" + String(String(hash, radix: 16).suffix(8))
    }

    /// Images this command made that no link of the file names any more: untitled blocks'
    /// (`diagram-….format` in the image folder) and those of the links it just replaced.
    /// Removed; with `check`, reported (exit 1).
    static func sweepOrphans(
        of path: String, linkedIn text: String, in imageDirectory: String, format: OutputFormat, replaced: [String], check: Bool,
        result: inout CommandResult
    ) {
        let base = (path as NSString).deletingLastPathComponent
        let folder = base.isEmpty ? imageDirectory : (base as NSString).appendingPathComponent(imageDirectory)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let untitled = names.filter { $0.hasPrefix("diagram-") && $0.hasSuffix("." + format.rawValue) }
            .map { (imageDirectory as NSString).appendingPathComponent($0) }
        for relative in Set(untitled + replaced).sorted() {
            guard !text.contains("(\(relative))") else { continue }
            let orphan = base.isEmpty ? relative : (base as NSString).appendingPathComponent(relative)
            guard FileManager.default.fileExists(atPath: orphan) else { continue }
            if check {
                result.fail(1, "unreferenced: \(orphan) (no image link of \(path) names it)")
            } else if (try? FileManager.default.removeItem(atPath: orphan)) != nil {
                result.say("removed \(orphan), which no image link names")
            }
        }
    }

    /// Writes the images (or, with `check`, compares them with the files); false after a write error.
    private static func store(_ images: [(path: String, bytes: [UInt8])], check: Bool, result: inout CommandResult) -> Bool {
        for image in images {
            if check {
                let current = FileManager.default.contents(atPath: image.path).map { [UInt8]($0) }
                if current == nil {
                    result.fail(1, "missing: \(image.path)")
                } else if current != image.bytes {
                    result.fail(1, "stale: \(image.path)")
                }
                continue
            }
            let directory = (image.path as NSString).deletingLastPathComponent
            if let problem = createFolder(directory) {
                result.fail(2, "error: cannot create \(directory): \(problem)")
                return false
            }
            do {
                try writeAtomically(image.bytes, to: image.path)
                result.say("wrote \(image.path)")
            } catch {
                result.fail(2, "error: cannot write \(image.path): \(error)")
                return false
            }
        }
        return true
    }

    /// The fenced `marble` code blocks of `lines`, in order.
    /// `unterminated` is the line of an opening fence that no closing fence follows.
    static func marbleBlocks(in lines: [String]) -> (blocks: [MarkdownBlock], unterminated: Int?) {
        var blocks: [MarkdownBlock] = []
        var index = 0
        while index < lines.count {
            guard lines[index].trimmingCharacters(in: .whitespacesAndNewlines) == "```marble" else {
                index += 1
                continue
            }
            let start = index
            var body: [String] = []
            index += 1
            while index < lines.count, lines[index].trimmingCharacters(in: .whitespacesAndNewlines) != "```" {
                body.append(lines[index])
                index += 1
            }
            if index == lines.count { return (blocks, start + 1) }
            let title = body.first { $0.hasPrefix("title:") }.map { String($0.dropFirst(6)).trimmingCharacters(in: .whitespaces) }
            blocks.append(MarkdownBlock(line: start + 1, spec: body.joined(separator: "\n") + "\n", after: index + 1, title: title))
            index += 1
        }
        return (blocks, nil)
    }

    /// A file name from a title: letters and digits kept, runs of anything else one `-`.
    static func uniqueName(_ title: String, taken: inout Set<String>) -> String {
        var name = ""
        for scalar in title.unicodeScalars {
            if CharacterSet.alphanumerics.contains(scalar), scalar.isASCII {
                name.unicodeScalars.append(scalar)
            } else if !name.isEmpty, !name.hasSuffix("-") {
                name += "-"
            }
        }
        while name.hasSuffix("-") { name.removeLast() }
        if name.isEmpty { name = "diagram" }
        var unique = name
        var counter = 2
        while taken.contains(unique) {
            unique = "\(name)-\(counter)"
            counter += 1
        }
        taken.insert(unique)
        return unique
    }

    /// Moves a spec error's `file:line:` (counted inside the block) to the Markdown file's line.
    static func shift(_ failure: DrawFailure, in path: String, by blockLine: Int) -> String {
        guard let line = failure.line else { return failure.message }
        let located = "\(path):\(line):"
        guard let range = failure.message.range(of: located) else { return failure.message }
        return failure.message.replacingCharacters(in: range, with: "\(path):\(line + blockLine):")
    }
}
