import MarbleCore
import MarblesTesting
import Testing

@testable import Marbles

/// A deliberately broken operator: `map` that drops a value equal to `bad` once it has seen
/// `after` values (a bug no hand-drawn diagram of three values would catch).
extension ObservableType where Element == String {
    func brokenMap(dropping bad: String, after: Int) -> Observable<String> {
        var seen = 0
        return compactMap { value in
            defer { seen += 1 }
            return seen >= after && value == bad ? nil : value
        }
    }
}

@Suite("Properties over generated diagrams")
struct MarblePropertyTests {
    @Test("a law that holds passes every case")
    func holdingLaw() {
        let outcome = checkMarbles(count: 200) { s, draw in
            let source = draw.cold("abc")
            s.expect(source.map { $0 + "!" }.map { $0 + "?" }).toBeLike(source.map { $0 + "!?" })
        }
        #expect(outcome.counterexample == nil && outcome.cases == 200)
    }

    @Test("a broken operator is shrunk to a diagram of a few events, reported with the seed")
    func shrinksABrokenOperator() throws {
        let reporter = MarbleFailure.Collector()
        let outcome = MarbleProperty.check(count: 300, seed: 42, reporter: reporter, location: here()) { s, draw in
            let source = draw.cold("abc")
            s.expect(source.brokenMap(dropping: "c", after: 2)).toBeLike(source.map { $0 })
        }
        let example = try #require(outcome.counterexample)
        #expect(example.shrunkEvents <= 3, "\(example.shrunk)")
        // No `|`: the failure does not need one (it was `aac|`).
        #expect(example.shrunk == ["cold: aac"], "\(example.shrunk)")
        let message = try #require(reporter.failures.first?.message)
        #expect(message.contains("seed 0x2a"))
        #expect(message.contains("MARBLES_SEED=0x2a"))
        #expect(message.contains("  cold: "))
    }

    @Test("the same seed runs the same cases and finds the same smallest case")
    func seedReproduces() {
        func run() -> MarbleProperty.Outcome {
            MarbleProperty.check(count: 300, seed: 7, reporter: MarbleFailure.Collector(), location: here()) { s, draw in
                let source = draw.hot("abc")
                s.expect(source.brokenMap(dropping: "b", after: 1)).toBeLike(source.map { $0 })
            }
        }
        let first = run()
        let second = run()
        #expect(first.counterexample?.shrunk == second.counterexample?.shrunk)
        #expect(first.counterexample?.original == second.counterexample?.original)
        #expect(first.counterexample?.caseNumber == second.counterexample?.caseNumber)
    }
}

func here(fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line) -> MarbleFailure.Location {
    MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: 1)
}

@Suite("Properties: the smallest case's scheduler")
struct MarblePropertyConfigureTests {
    @Test("the listener hears the smallest case's expectations (MarblesTesting passes the MARBLES_DIAGRAM_DIR writer)")
    func listenerHearsTheSmallestCase() {
        var checked: [(passed: Bool, actual: Int)] = []
        let listener = TestScheduler.Listener(expectationChecked: { checked.append(($0.passed, $0.actual.count)) })
        let property = { (s: TestScheduler, draw: MarbleProperty.Generator) in
            let source = draw.cold("abc")
            s.expect(source.brokenMap(dropping: "a", after: 0)).toBeLike(source.map { $0 })
        }
        MarbleProperty.check(count: 300, seed: 3, reporter: MarbleFailure.Collector(), location: here(), listener: listener, property)
        #expect(checked.count == 1 && checked.first?.passed == false, "\(checked)")
        // The smallest case: `a` (the `a` dropped, nothing left; no `|`, which the failure does not need).
        #expect(checked.first?.actual == 0, "\(checked)")
    }
}

@Suite("Properties: reading a seed")
struct MarblePropertySeedTests {
    @Test("a seed reads back as the failure message prints it, or in decimal; anything else is refused")
    func seeds() {
        #expect(MarbleProperty.seed(from: "0x2a") == 42)
        #expect(MarbleProperty.seed(from: "42") == 42)
        #expect(MarbleProperty.seed(from: "0xzz") == nil)
        #expect(MarbleProperty.seed(from: "forty-two") == nil)
    }
}
