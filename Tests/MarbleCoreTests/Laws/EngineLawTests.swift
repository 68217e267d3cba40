import MarbleCore
import Marbles
import MarblesTesting
import Testing

/// Laws of the operator families, checked on generated diagrams: 100 cases each in `make test`,
/// 10⁵ in `make fuzz` (`MARBLES_PROPERTY_COUNT`). A counterexample becomes a regression test.
@Suite("Engine laws on generated diagrams")
struct EngineLawTests {
    @Test("map fusion: map(f).map(g) is map(g ∘ f)")
    func mapFusion() {
        checkMarbles { s, draw in
            let source = draw.hot("abc")
            s.expect(source.map { $0 + "1" }.map { $0 + "2" }).toBeLike(source.map { $0 + "12" })
        }
    }

    @Test("merge is commutative up to the order of events at one frame")
    func mergeCommutes() {
        checkMarbles { s, draw in
            let a = draw.hot("ab")
            let b = draw.cold("xy")
            let left = s.record(a.merge(with: b))
            let right = s.record(b.merge(with: a))
            s.flush()
            draw.require(
                Self.byFrame(left.events) == Self.byFrame(right.events),
                "merge(a, b) and merge(b, a) differ beyond same-frame order:\n\(left.events)\n\(right.events)")
        }
    }

    @Test("concat(b) is concatMap over [a, b]")
    func concatIsConcatMap() {
        checkMarbles { s, draw in
            let a = draw.cold("ab")
            let b = draw.cold("xy")
            s.expect(a.concat(b)).toBeLike(Observable.from([a.asObservable(), b.asObservable()]).concatMap { $0 })
        }
    }

    @Test("flatMapLatest(f) is map(f).switchLatest()")
    func flatMapLatestIsSwitchLatest() {
        checkMarbles { s, draw in
            let source = draw.hot("ab")
            let inners = ["a": draw.cold("xy"), "b": draw.cold("z")]
            s.expect(source.flatMapLatest { inners[$0]! }).toBeLike(source.map { inners[$0]! }.switchLatest())
        }
    }

    @Test("flatMap(maxConcurrent: 1) is concatMap")
    func flatMapOfOneIsConcatMap() {
        checkMarbles { s, draw in
            let source = draw.hot("ab")
            let inners = ["a": draw.cold("xy"), "b": draw.cold("z")]
            s.expect(source.flatMap(maxConcurrent: 1) { inners[$0]! }).toBeLike(source.concatMap { inners[$0]! })
        }
    }

    @Test("take(n) and skip(n) together hold every value, in order")
    func takeAndSkipSplit() {
        checkMarbles { s, draw in
            let source = draw.cold("abc")
            let n = draw.int(in: 0...4)
            let split = Observable.zip(source.take(n).toArray(), source.skip(n).toArray()) { $0 + $1 }
            s.expect(split.map { $0.joined() }).toBeLike(source.toArray().map { $0.joined() })
        }
    }

    @Test("over any subscription window, map(identity) is like the source (found: toBeLike ignored the window)")
    func subscriptionWindows() {
        checkMarbles { s, draw in
            let source = draw.hot("abc")
            s.expect(source.map { $0 }, unsubscribe: draw.subscription()).toBeLike(source.filter { _ in true })
        }
    }

    @Test("retry(0) is the identity")
    func retryZero() {
        checkMarbles { s, draw in
            let source = draw.cold("abc")
            s.expect(source.retry(0)).toBeLike(source)
        }
    }

    @Test("every operator releases its source by the frame it is unsubscribed", arguments: OperatorContractTests.operators)
    func unsubscriptionReleases(_ op: OperatorContractTests.Op) {
        checkMarbles(count: 30) { s, draw in
            let source = draw.cold("abc")
            let unsubscribe = draw.int(in: 0...20)
            _ = s.expect(op.apply(source.asObservable(), s), unsubscribe: "^" + String(repeating: "-", count: unsubscribe) + "!")
            s.flush()
            let frame = s.frame * (unsubscribe + 1)  // `^` takes a frame, `!` none
            for log in source.subscriptions where log.subscribed <= frame {
                draw.require(
                    (log.unsubscribed ?? .seconds(1_000_000)) <= frame,
                    "\(op.name): source subscribed at \(log.subscribed) still subscribed after the unsubscription at \(frame)")
            }
        }
    }

    /// Events grouped by frame, each frame's sorted: merge order within a frame does not count.
    static func byFrame(_ events: [Recorded<Event<String>>]) -> [Duration: [String]] {
        Dictionary(grouping: events, by: \.time).mapValues { $0.map { "\($0.value)" }.sorted() }
    }
}
