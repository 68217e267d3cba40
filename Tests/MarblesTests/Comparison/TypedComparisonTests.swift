import MarbleCore
import Marbles
import Testing

/// An Int that is not Equatable: without `areEqual`, its expectations take the general (erased) comparison.
private struct Plain: CustomStringConvertible {
    var value: Int
    var description: String { "\(value)" }
}

/// Equal by `key` alone, whatever `note` says: `==` and the descriptions disagree.
private struct Keyed: Equatable, CustomStringConvertible {
    var key: Int
    var note: String
    var description: String { "\(key)/\(note)" }
    static func == (a: Keyed, b: Keyed) -> Bool { a.key == b.key }
}

/// `toBe` called where the element type is not known to be Equatable (a generic helper).
private func expectUnconstrained<T>(_ expectation: MarbleExpectation<T>, _ diagram: String, values: [String: T]) {
    expectation.toBe(diagram, values: values)
}

private struct Failure: Error, CustomStringConvertible {
    var text: String
    var description: String { text }
}

/// What a scheduler reports for `actual` expected to be `diagram`, with Equatable Ints
/// (typed comparison) or with non-Equatable wrappers of the same numbers (general comparison).
private func reports(_ actual: String, _ diagram: String, typed: Bool, areEqual: ((Int, Int) -> Bool)? = nil) -> [String] {
    let reporter = MarbleFailure.Collector()
    let scheduler = TestScheduler(reporter: reporter)
    let values = ["a": 1, "b": 2, "c": 3]
    scheduler.run {
        let source = scheduler.cold(actual, values: values, error: Failure(text: "boom"))
        if typed {
            scheduler.expect(source).toBe(diagram, values: values, error: Failure(text: "boom"), areEqual: areEqual)
        } else {
            let wrapped = values.mapValues(Plain.init)
            let equal = areEqual.map { areEqual in { (x: Plain, y: Plain) in areEqual(x.value, y.value) } }
            scheduler.expect(source.map(Plain.init)).toBe(diagram, values: wrapped, error: Failure(text: "boom"), areEqual: equal)
        }
    }
    return reporter.failures.map(\.message)
}

@Suite("Typed comparison")
struct TypedComparisonTests {
    @Test(
        "an Equatable recording passes and fails exactly where the general comparison does, with the same message",
        arguments: [
            ("-a-b-|", "-a-b-|"), ("-a-b-|", "-a-c-|"), ("-a-b-|", "-a--b|"), ("-a-b-|", "-a-b-"), ("-a-b-#", "-a-b-#"),
            ("-a-b-#", "-a-b-|"), ("-(ab)-|", "-(ba)-|"), ("-(ab)-|", "-(ab)-|"), ("-a-b-|", "-a-b-c-|"), ("--", "--"),
            ("-a-b-|", "^-a-b-|"), ("-a-b-|", "-a-x-|"),
        ])
    func sameVerdicts(_ actual: String, _ expected: String) {
        let typed = reports(actual, expected, typed: true)
        #expect(typed == reports(actual, expected, typed: false))
    }

    @Test("a custom areEqual decides in the typed comparison as in the general one")
    func customEquality() {
        let sameParity: (Int, Int) -> Bool = { $0 % 2 == $1 % 2 }
        #expect(reports("-a-b-|", "-c-b-|", typed: true, areEqual: sameParity).isEmpty)
        #expect(!reports("-a-b-|", "-b-b-|", typed: true, areEqual: sameParity).isEmpty)
        #expect(
            reports("-a-b-|", "-b-b-|", typed: true, areEqual: sameParity)
                == reports("-a-b-|", "-b-b-|", typed: false, areEqual: sameParity))
    }

    @Test("Equatable values compare with ==, whether the call site knows them to be Equatable or not")
    func equatableUsesEquality() {
        for generic in [false, true] {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(reporter: reporter)
            scheduler.run {
                let source = scheduler.cold("-a-b-|", values: ["a": Keyed(key: 1, note: "x"), "b": Keyed(key: 2, note: "y")])
                // Same keys, other notes: equal by ==, though their descriptions differ.
                let same = ["a": Keyed(key: 1, note: "other"), "b": Keyed(key: 2, note: "other")]
                // Same notes, another key: unequal by ==, though one description part matches.
                let other = ["a": Keyed(key: 1, note: "x"), "b": Keyed(key: 3, note: "y")]
                if generic {
                    expectUnconstrained(scheduler.expect(source), "-a-b-|", values: same)
                    expectUnconstrained(scheduler.expect(source), "-a-b-|", values: other)
                } else {
                    scheduler.expect(source).toBe("-a-b-|", values: same)
                    scheduler.expect(source).toBe("-a-b-|", values: other)
                }
            }
            #expect(reporter.failures.count == 1, "generic: \(generic)")
            #expect(reporter.failures.first?.message.contains("3/y") == true, "generic: \(generic)")
        }
    }

    @Test("recorded events read the same whether recorded typed or erased")
    func recordedEvents() {
        let scheduler = TestScheduler(reporter: MarbleFailure.Collector())
        var typed: MarbleExpectation<Int>?
        scheduler.run {
            let source = scheduler.cold("-a-b-|", values: ["a": 1, "b": 2])
            typed = scheduler.expect(source)
        }
        let recorded = typed?.recorded ?? []
        #expect(recorded.map(\.time) == [.milliseconds(1), .milliseconds(3), .milliseconds(5)])
        #expect(recorded.map(\.value.description) == ["next(1)", "next(2)", "completed"])
    }
}
