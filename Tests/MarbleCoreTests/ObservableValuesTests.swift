import Dispatch
import Foundation
import MarbleCore
import Testing

/// `values`: an observable as an async sequence, with `AsyncThrowingStream`'s behaviour (it
/// was one until session 16). The type name carries "Concurrency" so that `make test-tsan`
/// runs these under ThreadSanitizer.
@Suite("values: an observable as an async sequence", .timeLimit(.minutes(1)))
struct ObservableValuesConcurrencyTests {
    /// An observable that counts its subscriptions and disposals.
    final class Tracked: @unchecked Sendable {
        private let lock = NSLock()
        private var subscribed = 0
        private var disposed = 0
        let subject = PublishSubject<Int>()

        var observable: Observable<Int> {
            Observable.create { [self] observer in
                lock.withLock { subscribed += 1 }
                let inner = subject.subscribe(observer)
                return Disposables.create { [self] in
                    inner.dispose()
                    lock.withLock { disposed += 1 }
                }
            }
        }

        var counts: (subscribed: Int, disposed: Int) { lock.withLock { (subscribed, disposed) } }
    }

    @Test("subscribes when the sequence is made: values sent before iteration are buffered, in order")
    func buffersFromCreation() async throws {
        let tracked = Tracked()
        let values = tracked.observable.values
        #expect(tracked.counts.subscribed == 1)
        tracked.subject.onNext(1)
        tracked.subject.onNext(2)
        tracked.subject.onCompleted()
        var collected: [Int] = []
        for try await value in values { collected.append(value) }
        #expect(collected == [1, 2])
        #expect(tracked.counts.disposed == 1)
    }

    @Test("through the standard library's operators (which call the iterator generically): values, error, then nil")
    func throughStandardLibraryOperators() async throws {
        let subject = PublishSubject<Int>()
        let values = subject.values
        subject.onNext(1)
        subject.onNext(2)
        subject.onNext(3)
        subject.onError(TestError())
        var iterator = values.map { $0 * 10 }.filter { $0 != 20 }.makeAsyncIterator()
        #expect(try await iterator.next() == 10)
        #expect(try await iterator.next() == 30)
        await #expect(throws: TestError.self) { _ = try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test("an error is thrown after the values before it, once; next() then returns nil")
    func errorAfterValues() async throws {
        let subject = PublishSubject<Int>()
        let values = subject.values
        subject.onNext(7)
        subject.onError(TestError())
        var iterator = values.makeAsyncIterator()
        #expect(try await iterator.next() == 7)
        await #expect(throws: TestError.self) { _ = try await iterator.next() }
        #expect(try await iterator.next() == nil)
        #expect(try await iterator.next() == nil)
    }

    @Test("completion ends the sequence for good: next() keeps returning nil")
    func completionIsFinal() async throws {
        var iterator = Observable.from([1]).values.makeAsyncIterator()
        #expect(try await iterator.next() == 1)
        #expect(try await iterator.next() == nil)
        #expect(try await iterator.next() == nil)
    }

    @Test("a value sent while the consumer waits resumes it")
    func resumesWaitingConsumer() async throws {
        let subject = PublishSubject<Int>()
        let values = subject.values
        let consumer = Task {
            var collected: [Int] = []
            for try await value in values { collected.append(value) }
            return collected
        }
        // Sent from another thread, some while the consumer waits, some before it asks.
        DispatchQueue(label: "producer").async {
            for i in 0..<200 { subject.onNext(i) }
            subject.onCompleted()
        }
        #expect(try await consumer.value == Array(0..<200))
    }

    @Test("cancelling the iterating task disposes the subscription and ends the loop")
    func cancellationDisposes() async throws {
        let tracked = Tracked()
        let values = tracked.observable.values
        let started = AsyncStream<Void>.makeStream()
        let consumer = Task {
            var collected: [Int] = []
            var iterator = values.makeAsyncIterator()
            started.continuation.yield()
            while let value = try await iterator.next() { collected.append(value) }
            return collected
        }
        var signals = started.stream.makeAsyncIterator()
        await signals.next()
        consumer.cancel()
        let collected = try await consumer.value
        #expect(collected.isEmpty)
        #expect(tracked.counts.disposed == 1)
        #expect(!tracked.subject.hasObservers)
    }

    @Test("values buffered before a cancel are still taken, then nil")
    func bufferedSurvivesCancel() async throws {
        let subject = PublishSubject<Int>()
        let values = subject.values
        subject.onNext(1)
        subject.onNext(2)
        let consumer = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var collected: [Int] = []
            for try await value in values { collected.append(value) }
            return collected
        }
        #expect(try await consumer.value == [1, 2])
    }

    @Test("leaving the loop early and dropping the sequence disposes the subscription")
    func droppingDisposes() async throws {
        let tracked = Tracked()
        do {
            let values = tracked.observable.values
            tracked.subject.onNext(1)
            tracked.subject.onNext(2)
            for try await value in values where value == 1 { break }
        }
        #expect(tracked.counts.subscribed == 1 && tracked.counts.disposed == 1)
        #expect(!tracked.subject.hasObservers)

        // Never iterated at all: the same.
        do { _ = tracked.observable.values }
        #expect(tracked.counts.subscribed == 2 && tracked.counts.disposed == 2)
    }

    @Test("a source that ends while it is subscribed (synchronous) keeps nothing subscribed")
    func synchronousSource() async throws {
        var collected: [Int] = []
        for try await value in Observable.from([1, 2, 3]).values { collected.append(value) }
        #expect(collected == [1, 2, 3])
        await #expect(throws: TestError.self) {
            for try await _ in Observable<Int>.error(TestError()).values {}
        }
    }

    @Test("iterators of one sequence share its buffer: the second goes on where the first stopped")
    func iteratorsShareBuffer() async throws {
        let values = Observable.from([1, 2, 3]).values
        var first = values.makeAsyncIterator()
        #expect(try await first.next() == 1)
        var second = values.makeAsyncIterator()
        #expect(try await second.next() == 2)
        #expect(try await first.next() == 3)
        #expect(try await second.next() == nil)
    }
}
