import Foundation
import MarbleCore
import MarblesTesting
import Testing

/// The table of what escapes virtual time (the "What runs on virtual time" article) says what
/// each case prints; these keep it true.
@Suite("The table of what escapes")
struct EscapeTableTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("main-actor work in a test not on the main actor names itself")
    func mainActorWorkOffTheMainActor() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        scheduler.run {
            Task { @MainActor in _ = 1 }
        }
        let messages = reporter.failures.map(\.message)
        #expect(
            messages.contains {
                $0.contains("the code under test started 1 main-actor job(s), but this test does not run on the main actor")
            },
            "\(messages)")
    }

    @Test("every message the table quotes is one a test checks")
    func tableQuotesCheckedMessages() throws {
        let article = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/Marbles/Marbles.docc/VirtualTimeReference.md"), encoding: .utf8)
        let rows = article.components(separatedBy: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| ---") }.dropFirst()
        let quoted = rows.flatMap { row in
            let said = row.components(separatedBy: " | ").last ?? ""
            return said.components(separatedBy: "\"").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        }
        #expect(quoted.count >= 6, "\(quoted)")
        let tests = try FileManager.default.subpathsOfDirectory(atPath: Self.root.appendingPathComponent("Tests").path)
            .filter { $0.hasSuffix(".swift") && !$0.split(separator: "/").contains { $0.hasPrefix(".build") } }
            .map { try String(contentsOf: Self.root.appendingPathComponent("Tests").appendingPathComponent($0), encoding: .utf8) }
            .joined()
        for message in quoted {
            #expect(tests.contains(message), "no test checks \"\(message)\"")
        }
    }
}
