import Foundation
import MarbleCore
import Marbles

// Shrinking, measured: 100 injected bugs (operators broken in one of five ways, at a value and
// after a count that vary), each found by a property over generated diagrams of up to 60 frames;
// for each, the events of the first failing case and of the reported smallest case, and the time
// shrinking took. Goal: median reported size ≤ 20% of the first failing case; < 1 s per shrink in
// a debug build for cases of about 50 events.

/// One injected bug: a `map` that misbehaves on `label` once it has passed `after` values.
struct InjectedBug {
    enum Kind: CaseIterable { case drop, duplicate, replace, completeEarly, swallowError }
    let kind: Kind
    let label: String
    let after: Int

    func apply(_ source: Observable<String>) -> Observable<String> {
        let kind = self.kind
        let label = self.label
        let after = self.after
        return Observable.create { observer in
            var seen = 0
            return source.subscribe { event in
                switch event {
                case .next(let value):
                    defer { seen += 1 }
                    guard seen >= after, value == label else { return observer.onNext(value) }
                    switch kind {
                    case .drop: break
                    case .duplicate:
                        observer.onNext(value)
                        observer.onNext(value)
                    case .replace: observer.onNext(value + "'")
                    case .completeEarly: observer.onCompleted()
                    case .swallowError: observer.onNext(value)
                    }
                case .error where kind == .swallowError && seen > after: observer.onCompleted()
                default: observer.on(event)
                }
            }
        }
    }
}

nonisolated func shrinkingBenchmarks() {
    var ratios: [Double] = []
    var times: [Double] = []
    var largeTimes: [Double] = []
    var found = 0
    var shrunkSizes: [Int] = []
    let bugs = options.quick ? 30 : 100
    for index in 0..<bugs {
        let bug = InjectedBug(
            kind: InjectedBug.Kind.allCases[index % 5], label: ["a", "b", "c"][index / 5 % 3], after: (index * 7) % 10)
        let outcome = MarbleProperty.check(
            count: 400, seed: UInt64(index + 1), minFrames: 120, maxFrames: 120, reporter: MarbleFailure.Collector(),
            location: MarbleFailure.Location(fileID: #fileID, filePath: #filePath, line: #line, column: #column)
        ) { s, draw in
            let source = draw.hot("abc")
            s.expect(bug.apply(source.asObservable())).toBeLike(source)
        }
        guard let example = outcome.counterexample, example.originalEvents > 0 else { continue }
        found += 1
        ratios.append(Double(example.shrunkEvents) / Double(example.originalEvents))
        shrunkSizes.append(example.shrunkEvents)
        let seconds = Double(example.shrinkTime.components.seconds) + Double(example.shrinkTime.components.attoseconds) / 1e18
        times.append(seconds)
        if example.originalEvents >= 40 { largeTimes.append(seconds) }
    }
    func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
    say("== shrinking: \(bugs) injected bugs, properties over diagrams of 120 frames (about 50 events)")
    say("  bugs found: \(found) of \(bugs)")
    say(
        String(
            format: "  reported case / first failing case, events: median %.0f%%, max %.0f%%", median(ratios) * 100,
            (ratios.max() ?? .nan) * 100))
    say("  reported case, events: median \(shrunkSizes.sorted()[shrunkSizes.count / 2]), max \(shrunkSizes.max() ?? 0)")
    say(String(format: "  shrink time: median %.1f ms, max %.1f ms", median(times) * 1e3, (times.max() ?? .nan) * 1e3))
    say(
        String(
            format: "  shrink time, first failing case of ≥ 40 events (%d): median %.1f ms, max %.1f ms", largeTimes.count,
            median(largeTimes) * 1e3, (largeTimes.max() ?? .nan) * 1e3))
}
