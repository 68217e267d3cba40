import MarbleCore
import MarblesTesting
import Testing

@Suite("Per-subscription operator state")
struct SubscriptionStateTests {
    /// Subscribes twice in a row and returns both runs' values.
    func twice<T>(_ observable: Observable<T>) throws -> ([T], [T]) {
        (try observable.blocking(timeout: .seconds(10)).toArray(), try observable.blocking(timeout: .seconds(10)).toArray())
    }

    @Test("stateful operators start over on each subscription: no state leaks from the one before")
    func startsOver() throws {
        let source = Observable.from([1, 1, 2, 3, 3, 4])
        let scanned = try twice(source.scan(0, accumulator: +))
        #expect(scanned.0 == [1, 2, 4, 7, 10, 14] && scanned.1 == scanned.0)
        let scannedInto = try twice(source.scan(into: [Int]()) { $0.append($1) }.map(\.count))
        #expect(scannedInto.0 == [1, 2, 3, 4, 5, 6] && scannedInto.1 == scannedInto.0)
        let reduced = try twice(source.reduce(0, accumulator: +))
        #expect(reduced.0 == [14] && reduced.1 == [14])
        let indexes = try twice(source.enumerated().map(\.index))
        #expect(indexes.0 == [0, 1, 2, 3, 4, 5] && indexes.1 == indexes.0)
        let pairs = try twice(source.pairwise().map { $0.0 * 10 + $0.1 })
        #expect(pairs.0 == [11, 12, 23, 33, 34] && pairs.1 == pairs.0)
        let previous = try twice(source.combinePrevious(0).map(\.previous))
        #expect(previous.0 == [0, 1, 1, 2, 3, 3] && previous.1 == previous.0)
        let taken = try twice(source.take(2))
        #expect(taken.0 == [1, 1] && taken.1 == taken.0)
        let skipped = try twice(source.skip(4))
        #expect(skipped.0 == [3, 4] && skipped.1 == skipped.0)
        let skippedWhile = try twice(source.skip(while: { $0 < 3 }))
        #expect(skippedWhile.0 == [3, 3, 4] && skippedWhile.1 == skippedWhile.0)
        let distinct = try twice(source.distinctUntilChanged())
        #expect(distinct.0 == [1, 2, 3, 4] && distinct.1 == distinct.0)
        let element = try twice(source.elementAt(2))
        #expect(element.0 == [2] && element.1 == [2])
        let counted = try twice(source.count())
        #expect(counted.0 == [6] && counted.1 == [6])
        let skippedLast = try twice(source.skipLast(2))
        #expect(skippedLast.0 == [1, 1, 2, 3] && skippedLast.1 == skippedLast.0)
        let only = try twice(Observable.from([7]).single())
        #expect(only.0 == [7] && only.1 == [7])
        let unique = try twice(source.distinct())
        #expect(unique.0 == [1, 2, 3, 4] && unique.1 == unique.0)
        let buffered = try twice(source.buffer(count: 4))
        #expect(buffered.0 == [[1, 1, 2, 3], [3, 4]] && buffered.1 == buffered.0)
    }
}
