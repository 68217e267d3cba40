import Foundation
import Testing

/// What a plain `swift test` leaves out: the tests that need one of the package's traits are
/// compiled only with it. A run without them says so in one line (a warning, not a failure).
@Suite("Package traits")
struct TraitsNoteTests {
    /// Each trait, with the test targets (or files) it adds.
    static let added: [(trait: String, tests: [String])] = [
        ("OpenCombine", ["MarblesCombineTests", "NameClashCombineTests"]),
        (
            "Tools",
            [
                "MarblegenCommandsTests/MarblegenBinaryTests.swift", "MarblegenCommandsTests/MarkdownCommandTests.swift",
                "MarblePlaygroundTests/MarbleplayBinaryTests.swift", "MarblePlaygroundTests/PlaygroundServerTests.swift",
            ]
        ),
    ]

    /// The traits this build lacks.
    static var missing: Set<String> {
        var missing: Set<String> = []
        #if !OpenCombine && !canImport(Combine)
            missing.insert("OpenCombine")
        #endif
        #if !Tools
            missing.insert("Tools")
        #endif
        return missing
    }

    @Test("the note names test targets and files that exist")
    func noteNamesWhatExists() {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        for (_, paths) in Self.added {
            for path in paths {
                #expect(FileManager.default.fileExists(atPath: tests.appendingPathComponent(path).path), "\(path)")
            }
        }
    }

    @Test("a run without the package's traits says in one line which tests they add")
    func traitsNote() {
        let lacking = Self.added.filter { Self.missing.contains($0.trait) }
        guard !lacking.isEmpty else { return }
        let listed = lacking.map { "\($0.trait) (\($0.tests.joined(separator: ", ")))" }.joined(separator: " and ")
        Issue.record(
            "built without the traits \(listed): swift test --traits Tools,OpenCombine (make test) runs them too",
            severity: .warning)
    }
}
