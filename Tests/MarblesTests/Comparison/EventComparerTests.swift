import Testing

@testable import Marbles

/// A value that is not Equatable: compared by type and description.
private struct Opaque: CustomStringConvertible {
    var text: String
    var description: String { text }
}

private final class Base: Equatable {
    let id: Int
    init(_ id: Int) { self.id = id }
    static func == (a: Base, b: Base) -> Bool { a.id == b.id }
}

private final class Box {}

@Suite("Event comparison fast path")
struct EventComparerTests {
    /// Values of many kinds, including the ones the fast path must hand to the general rules.
    static var values: [Any] {
        [
            1, 2, 1 as Int64, "1", "a", "a" as Substring, 1.5, true, Optional(1) as Any, Optional<Int>.none as Any,
            Opaque(text: "x"), Opaque(text: "y"), Opaque(text: "1"), Base(1), Base(2), Box(), [1, 2], ["k": 1],
            ValueMatcher.any, ValueMatcher.of(Int.self, "odd") { $0 % 2 == 1 }, Optional(ValueMatcher.any) as Any,
            Optional(ValueMatcher.of(Int.self, "odd") { $0 % 2 == 1 }) as Any,
        ]
    }

    @Test("gives the same answer as the general rules for every pair of values, in any order")
    func sameAnswersAsGeneralRules() {
        // Made once: class instances must be the same objects in both loops.
        let events: [Event<RecordedValue>] =
            Self.values.map { .next(.plain($0)) } + [.completed, .error(MarbleError()), .error(MarbleError("other"))]
        // All pairs, walked so that the cached type changes often and also stays the same.
        var comparer = EventComparer(areEqual: nil)
        for a in events {
            for b in events {
                #expect(comparer.matches(a, b) == eventsMatch(a, b), "\(a) vs \(b)")
            }
        }
        var reversed = EventComparer(areEqual: nil)
        for b in events.reversed() {
            for a in events {
                #expect(reversed.matches(a, b) == eventsMatch(a, b), "\(a) vs \(b)")
            }
        }
    }

    @Test("a custom areEqual decides for plain values of one type, as in the general rules")
    func customAreEqual() {
        let areEqual: (Any, Any) -> Bool = { a, b in (a as? Int).map { a in (b as? Int).map { a % 10 == $0 % 10 } ?? false } ?? false }
        var comparer = EventComparer(areEqual: areEqual)
        let pairs: [(Any, Any)] = [(1, 11), (1, 2), ("a", "a"), (ValueMatcher.any, 3)]
        for (a, b) in pairs {
            let x = Event<RecordedValue>.next(.plain(a))
            let y = Event<RecordedValue>.next(.plain(b))
            #expect(comparer.matches(x, y) == eventsMatch(x, y, areEqual: areEqual))
        }
    }
}
