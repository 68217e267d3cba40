import MarbleCore
import TestSupport
import Testing

@testable import Marbles

/// Equal by `key` alone, whatever `note` says: `==` and the descriptions disagree.
private struct KeyedValue: Equatable, CustomStringConvertible {
    var key: Int
    var note: String
    var description: String { "\(key)/\(note)" }
    static func == (a: KeyedValue, b: KeyedValue) -> Bool { a.key == b.key }
}

/// Not Equatable: compared by type and description.
private struct Described: CustomStringConvertible {
    var text: String
    var description: String { text }
}

@Suite("One value equality")
struct ValueEqualityAgreementTests {
    /// The verdicts of every path on `a` (expected) against `b` (actual): the typed rule
    /// (`nil` for a type that is not Equatable), the general rule, the fast comparer of long
    /// timelines, and `toBe` itself, typed and through erased `values:`.
    static func verdicts<T>(_ a: T, _ b: T) -> (typed: Bool?, general: Bool, comparer: Bool, typedToBe: Bool?, erasedToBe: Bool) {
        let typed = ValueEquality.typed(T.self, areEqual: nil).map { $0(a, b) }
        let general = RecordedValue.plain(a).matches(.plain(b))
        let timeline = { (value: T) in
            [
                Recorded(time: .milliseconds(1), value: Event<RecordedValue>.next(.plain(value))),
                Recorded(time: .milliseconds(2), value: .completed),
            ]
        }
        let comparer = MarbleComparison(expected: timeline(a), actual: timeline(b), frame: .milliseconds(1)).matches
        func toBe(erased: Bool) -> Bool {
            let collector = MarbleFailure.Collector()
            let scheduler = TestScheduler(reporter: collector)
            scheduler.run {
                let source = scheduler.cold("-x|", values: ["x": b])
                if erased {
                    scheduler.expect(source).toBe("-x|", values: ["x": a as Any])
                } else {
                    scheduler.expect(source).toBe("-x|", values: ["x": a])
                }
            }
            return collector.failures.isEmpty
        }
        return (typed, general, comparer, typed == nil ? nil : toBe(erased: false), toBe(erased: true))
    }

    @Test("the typed path, the general path, the fast comparer and toBe (typed and erased) give the same verdict on random values")
    func pathsAgree() {
        var random = SeededRandom(seed: 53)
        var disagreements: [String] = []
        func check<T>(_ a: T, _ b: T) {
            let v = Self.verdicts(a, b)
            let answers = [v.typed, v.general, v.comparer, v.typedToBe, v.erasedToBe].compactMap { $0 }
            if Set(answers).count > 1 { disagreements.append("\(T.self) \(a) vs \(b): \(v)") }
        }
        for _ in 0..<60 {
            let n = Int.random(in: 0...2, using: &random)
            let m = Int.random(in: 0...2, using: &random)
            check(n, m)
            check("s\(n)", "s\(m)")
            check(n == 0 ? Double.nan : Double(n), Double(m))
            check(n == 0 ? nil : Optional(n), m == 0 ? nil : Optional(m))
            check([n, m], [m, n])
            check(KeyedValue(key: n, note: "a"), KeyedValue(key: m, note: n == m ? "b" : "a"))
            check(Described(text: "d\(n)"), Described(text: "d\(m)"))
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5).joined(separator: "\n"))")
        // Each case can go either way: the agreement is not all-true or all-false.
        #expect(!Self.verdicts(1, 2).general && Self.verdicts(1, 1).general)
        #expect(Self.verdicts(KeyedValue(key: 1, note: "a"), KeyedValue(key: 1, note: "b")).general)
        #expect(!Self.verdicts(Double.nan, Double.nan).general)
    }
}
