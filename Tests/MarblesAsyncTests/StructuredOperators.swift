import MarblesTesting

// Structured implementations of time and combining operators, written as the harness can
// drive them: every task is a task-group child (no `Task { }`), so all work stays on the
// test scheduler's executor. Each pushes its output to an `TestScheduler.AsyncEmitter`.

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
enum Signal<Element: Sendable>: Sendable {
    case value(Int, Element)
    case end(Int)
    case failure(any Error)
    case tick(Int)
}

/// Feeds each base into `signal` from its own group child, tagged with its index.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
func feed<S: AsyncSequence & Sendable>(
    _ bases: [S], into signal: AsyncStream<Signal<S.Element>>.Continuation, group: inout ThrowingTaskGroup<Void, any Error>
) where S.Element: Sendable {
    for (index, base) in bases.enumerated() {
        group.addTask {
            do {
                for try await value in base { signal.yield(.value(index, value)) }
                signal.yield(.end(index))
            } catch {
                signal.yield(.failure(error))
            }
        }
    }
}

/// Emits a value once `interval` passes without a newer one; the pending value is emitted
/// when the base ends. A new value at the very instant of a deadline resets it (the value's
/// emission was scheduled first), as `Observable.debounce` does.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
func debounce<S: AsyncSequence & Sendable>(
    _ base: S, for interval: Duration, clock: TestClock, emit: TestScheduler.AsyncEmitter<S.Element>
) async throws where S.Element: Sendable {
    let (signals, signal) = AsyncStream.makeStream(of: Signal<S.Element>.self)
    let (deadlines, deadline) = AsyncStream.makeStream(of: (TestClock.Instant, Int).self)
    try await withThrowingTaskGroup(of: Void.self) { group in
        feed([base], into: signal, group: &group)
        // One timer child sleeps through the deadlines in order; stale ticks are ignored.
        group.addTask {
            for await (instant, id) in deadlines {
                do { try await clock.sleep(until: instant) } catch { return }
                signal.yield(.tick(id))
            }
        }
        var pending: S.Element?
        var current = 0
        defer {
            deadline.finish()
            group.cancelAll()
        }
        for await event in signals {
            switch event {
            case .value(_, let value):
                pending = value
                current += 1
                deadline.yield((clock.now.advanced(by: interval), current))
            case .tick(let id):
                if id == current, let value = pending {
                    pending = nil
                    emit(value)
                }
            case .end:
                if let value = pending { emit(value) }
                return
            case .failure(let error):
                throw error
            }
        }
    }
}

/// Interleaves the bases; ends when all have ended, fails with the first failure.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
func merge<S: AsyncSequence & Sendable>(_ bases: [S], emit: TestScheduler.AsyncEmitter<S.Element>) async throws where S.Element: Sendable {
    let (signals, signal) = AsyncStream.makeStream(of: Signal<S.Element>.self)
    try await withThrowingTaskGroup(of: Void.self) { group in
        feed(bases, into: signal, group: &group)
        defer { group.cancelAll() }
        var remaining = bases.count
        for await event in signals {
            switch event {
            case .value(_, let value): emit(value)
            case .end:
                remaining -= 1
                if remaining == 0 { return }
            case .failure(let error): throw error
            case .tick: break
            }
        }
    }
}

/// Emits the latest of every base whenever one emits, once all have; ends when all have
/// ended, or when one ends without ever emitting.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
func combineLatest<S: AsyncSequence & Sendable>(_ bases: [S], emit: TestScheduler.AsyncEmitter<[S.Element]>) async throws
where S.Element: Sendable {
    let (signals, signal) = AsyncStream.makeStream(of: Signal<S.Element>.self)
    try await withThrowingTaskGroup(of: Void.self) { group in
        feed(bases, into: signal, group: &group)
        defer { group.cancelAll() }
        var latest = [S.Element?](repeating: nil, count: bases.count)
        var ended = 0
        for await event in signals {
            switch event {
            case .value(let index, let value):
                latest[index] = value
                let all = latest.compactMap { $0 }
                if all.count == bases.count { emit(all) }
            case .end(let index):
                ended += 1
                if ended == bases.count || latest[index] == nil { return }
            case .failure(let error): throw error
            case .tick: break
            }
        }
    }
}

/// Pairs the n-th values of the bases; ends as soon as an ended base has nothing buffered.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
func zip<S: AsyncSequence & Sendable>(_ bases: [S], emit: TestScheduler.AsyncEmitter<[S.Element]>) async throws where S.Element: Sendable {
    let (signals, signal) = AsyncStream.makeStream(of: Signal<S.Element>.self)
    try await withThrowingTaskGroup(of: Void.self) { group in
        feed(bases, into: signal, group: &group)
        defer { group.cancelAll() }
        var buffers = [[S.Element]](repeating: [], count: bases.count)
        var ended = [Bool](repeating: false, count: bases.count)
        func exhausted() -> Bool { bases.indices.contains { ended[$0] && buffers[$0].isEmpty } }
        for await event in signals {
            switch event {
            case .value(let index, let value):
                buffers[index].append(value)
                if buffers.allSatisfy({ !$0.isEmpty }) {
                    emit(buffers.indices.map { buffers[$0].removeFirst() })
                    if exhausted() { return }
                }
            case .end(let index):
                ended[index] = true
                if exhausted() { return }
            case .failure(let error): throw error
            case .tick: break
            }
        }
    }
}

/// A hand-written pull-based operator: running sums. Its iterator does its work inside the
/// consumer's `next()`, so it needs no task at all.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
struct RunningSum<Base: AsyncSequence>: AsyncSequence where Base.Element == Int {
    typealias Element = Int
    let base: Base

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var total = 0
        mutating func next() async throws -> Int? {
            guard let value = try await base.next() else { return nil }
            total += value
            return total
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }
}
