import MarbleCore
import Testing

@testable import Marbles

/// Not Equatable: compared by `areEqual`, or by type and description.
private struct Point: CustomStringConvertible {
    var x: Int
    var y: Int
    var description: String { "(\(x), \(y))" }
}

private func failures(_ body: (TestScheduler) -> Void) -> [String] {
    let reporter = MarbleFailure.Collector()
    let scheduler = TestScheduler(reporter: reporter)
    scheduler.run { body(scheduler) }
    return reporter.failures.map(\.message)
}

@Suite("One shape for expectations: typed by the observable's element")
struct ExpectationShapeTests {
    @Test("an integer literal in values: of a Double stream is a Double (before: an Int, never equal to 1.0)")
    func literalsTakeTheElementType() {
        #expect(
            failures { s in s.expect(s.cold("-a-b|", values: ["a": 1.0, "b": 2.5])).toBe("-a-b|", values: ["a": 1, "b": 2.5]) }.isEmpty)
        let wrong = failures { s in s.expect(s.cold("-a|", values: ["a": 1.0])).toBe("-a|", values: ["a": 2]) }
        #expect(wrong.count == 1)
        #expect(wrong.first?.contains("expected next(a = 2.0), got next(1.0)") == true, "\(wrong)")
    }

    @Test("the expectation carries the element type: the typed areEqual compares a non-Equatable element")
    func typedAreEqual() {
        let sameX: (Point, Point) -> Bool = { $0.x == $1.x }
        let source: (TestScheduler) -> TestScheduler.ColdObservable<Point> = { s in
            s.cold("-a-b|", values: ["a": Point(x: 1, y: 1), "b": Point(x: 2, y: 2)])
        }
        let expected = ["a": Point(x: 1, y: 9), "b": Point(x: 2, y: 9)]
        #expect(failures { s in s.expect(source(s)).toBe("-a-b|", values: expected, areEqual: sameX) }.isEmpty)
        // Without it, the descriptions differ.
        #expect(failures { s in s.expect(source(s)).toBe("-a-b|", values: expected) }.count == 1)
    }

    @Test("areEqual gets the expected value first and the actual second on the fast path too (it had them swapped)")
    func areEqualArgumentOrder() {
        let actualStartsWithExpected: (String, String) -> Bool = { expected, actual in actual.hasPrefix(expected) }
        let longer = failures { s in
            s.expect(s.cold("-a|", values: ["a": "swift"])).toBe("-a|", values: ["a": "sw"], areEqual: actualStartsWithExpected)
        }
        #expect(longer.isEmpty, "\(longer)")
        // The actual "sw" does not start with the expected "swift": a failure, from either path.
        let shorter = failures { s in
            s.expect(s.cold("-a|", values: ["a": "sw"])).toBe("-a|", values: ["a": "swift"], areEqual: actualStartsWithExpected)
        }
        #expect(shorter.count == 1)
    }

    @Test("matchers and inner observables take the values-of-any-type overload, for the same expectation")
    func valuesOfAnyType() {
        let matcher = failures { s in
            s.expect(s.cold("-a-b|", values: ["a": 3, "b": -1]))
                .toBe("-p-n|", values: ["p": ValueMatcher.of(Int.self, "positive") { $0 > 0 }, "n": -1])
        }
        #expect(matcher.isEmpty)
        let inner = failures { s in
            let outer = s.cold("-x|").map { _ in s.cold("-q|") }
            s.expect(outer).toBe("-x|", values: ["x": s.cold("-q|")])
        }
        #expect(inner.isEmpty)
    }

    @Test("without values:, the diagram's keys are the values, as Strings, for a String stream and against any other")
    func keysAsStrings() {
        #expect(failures { s in s.expect(s.cold("-a-b|")).toBe("-a-b|") }.isEmpty)
        let mismatch = failures { s in s.expect(s.cold("-a|", values: ["a": 1])).toBe("-1|") }
        #expect(mismatch.first?.contains(#"expected next("1": String), got next(1: Int)"#) == true, "\(mismatch)")
    }

    @Test("toEmit and toBeLike take the element type too")
    func toEmitAndToBeLike() {
        #expect(failures { s in s.expect(s.cold("-a-b|", values: ["a": 1.0, "b": 2.0])).toEmit([1, 2]) }.isEmpty)
        #expect(failures { s in s.expect(s.cold("-a|").map { $0 }).toBeLike(s.cold("-a|")) }.isEmpty)
    }

    @Test("equality is found for Equatable types at run time, and only for them")
    func equalityOfType() {
        #expect(equality(of: Int.self)?(1, 1) == true)
        #expect(equality(of: [String].self)?(["a"], ["b"]) == false)
        #expect(equality(of: Int?.self)?(nil, nil) == true)
        #expect(equality(of: Point.self) == nil)
    }
}
