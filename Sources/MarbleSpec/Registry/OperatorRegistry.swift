/// The operators a spec may use, each running the real `MarbleCore` operator.
public struct OperatorDefinition: Sendable {
    /// How an argument is read.
    public enum ParameterKind: Sendable, Equatable {
        /// An expression of the given names (`x`, `acc`, or `$inputs`: the spec's input names).
        case function([String])
        /// A duration in frames.
        case frames
        /// A non-negative count.
        case count
        /// A constant value.
        case value
        /// `true` or `false`.
        case bool
    }

    /// One parameter.
    public struct Parameter: Sendable {
        /// The argument label, or `nil` for a positional parameter.
        public var label: String?
        /// What the argument must be: an expression over names, frames, a count, a value or a flag.
        public var kind: ParameterKind
        /// Whether the argument may be left out.
        public var optional: Bool
        /// The name usage messages show.
        public var name: String
    }

    /// The name a spec's `operator:` line uses.
    public var name: String
    /// One line for `marblegen operators`.
    public var summary: String
    /// How many inputs it takes.
    public var inputs: ClosedRange<Int>
    /// The parameters, in order.
    public var parameters: [Parameter]
    /// Whether its (first) input carries inner observables.
    public var higherOrder: Bool
    /// Whether it shares its source only once connected: a spec using it needs a `connect:` line.
    public var connectable = false
    let build: @Sendable (OperatorContext) throws -> Observable<SpecItem>

    /// `map(x => expression)`-style usage line.
    public var usage: String {
        let params = parameters.map { p -> String in
            let body: String
            switch p.kind {
            case .function(let names): body = "\(p.name) of \(names.map { $0 == "$inputs" ? "input names" : $0 }.joined(separator: ", "))"
            case .frames: body = "\(p.name) (frames)"
            default: body = p.name
            }
            let labelled = p.label.map { "\($0): \(body)" } ?? body
            return p.optional ? "[\(labelled)]" : labelled
        }
        return params.isEmpty ? name : "\(name)(\(params.joined(separator: ", ")))"
    }
}

/// What an operator's builder gets: the inputs, its bound arguments and the scheduler.
struct OperatorContext {
    let inputs: [Observable<SpecItem>]
    let inputNames: [String]
    let arguments: [Int: SpecExpression]
    let definition: OperatorDefinition
    let scheduler: TestScheduler
    /// Where a connectable operator leaves its `connect()`, for the spec's `connect:` line.
    let connector = Connector()
    /// Side effects the operator performs (`finalize`'s action), each drawn on a timeline of its own.
    let effects: EffectLog

    var source: Observable<SpecItem> { inputs[0] }

    /// Shares `connectable` among the subscribers; the run connects it at the `connect:` line's `^`.
    func connecting(_ connectable: ConnectableObservable<SpecItem>) -> Observable<SpecItem> {
        connector.connect = { connectable.connect() }
        return connectable.asObservable()
    }

    func constant(_ index: Int) throws -> SpecValue {
        guard let e = arguments[index] else { throw EvaluationError("missing argument \(index + 1)") }
        return try e.evaluate([:])
    }

    func frames(_ index: Int, default fallback: Int? = nil) throws -> Duration {
        if arguments[index] == nil, let fallback { return scheduler.frame * fallback }
        guard case .int(let n) = try constant(index) else { throw EvaluationError("expected a whole number of frames") }
        return scheduler.frame * n
    }

    /// A timer of `frames` (a whole number ≥ 0 an expression gave), for duration selectors.
    func timer(frames: SpecValue, for name: String) throws -> Observable<Int> {
        guard case .int(let n) = frames, n >= 0 else { throw EvaluationError("\(name) needs whole frames ≥ 0") }
        return Observable<Int>.timer(scheduler.frame * n, scheduler: scheduler)
    }

    func count(_ index: Int, default fallback: Int? = nil) throws -> Int {
        if arguments[index] == nil, let fallback { return fallback }
        guard case .int(let n) = try constant(index) else { throw EvaluationError("expected a whole number") }
        return n
    }

    func bool(_ index: Int, default fallback: Bool) throws -> Bool {
        guard arguments[index] != nil else { return fallback }
        guard case .bool(let b) = try constant(index) else { throw EvaluationError("expected true or false") }
        return b
    }

    /// An observable the operator emitted (a window, a group), named `name` and recorded from
    /// now on, so that the diagram draws it as an inner timeline of the output.
    func emitted<O: ObservableType>(_ observable: O, name: String) -> SpecItem where O.Element == SpecItem {
        let start = scheduler.now
        let stream = InnerStream(name: name, observable: observable.asObservable(), messages: []) { [SubscriptionLog(subscribed: start)] }
        let scheduler = self.scheduler
        _ = observable.subscribe { event in stream.messages.append(Recorded(time: scheduler.now - start, value: event)) }
        return .inner(name: name, stream)
    }

    /// Emitted windows named A, B, C, … in order (W27, W28, … after Z).
    func lettered<O: ObservableType>(_ windows: Observable<O>) -> Observable<SpecItem> where O.Element == SpecItem {
        var count = 0
        return windows.map { window in
            count += 1
            let name = count <= 26 ? String(UnicodeScalar(UInt8(64 + count))) : "W\(count)"
            return emitted(window, name: name)
        }
    }

    /// An inner observable that emits `value` after `delay` and completes: what the spec's
    /// accumulating operators (mergeScan, switchScan, expand) map a value to.
    func delayed(_ value: SpecValue, by delay: Duration) -> Observable<SpecItem> {
        delay > .zero
            ? Observable<Int>.timer(delay, scheduler: scheduler).map { _ in SpecItem.value(value) } : Observable.just(.value(value))
    }

    /// The function argument as a closure over its parameter names, in order.
    func function(_ index: Int) -> (([SpecValue]) throws -> SpecValue)? {
        guard let e = arguments[index], case .function(let declared) = definition.parameters[index].kind else { return nil }
        let names = declared == ["$inputs"] ? inputNames : declared
        return { values in try e.evaluate(Dictionary(uniqueKeysWithValues: zip(names, values))) }
    }
}

/// A connectable operator's `connect()`, set by its builder and called by the run.
final class Connector {
    var connect: (() -> any Disposable)?
}

/// Side effects an operator performed, as events on named timelines.
final class EffectLog {
    let scheduler: TestScheduler
    private(set) var timelines: [(name: String, events: [Recorded<Event<SpecItem>>])] = []

    /// Objects the operator refers to weakly, kept alive until the run drops them.
    private(set) var kept: [Holder] = []

    init(scheduler: TestScheduler) { self.scheduler = scheduler }

    /// Keeps `object` alive for the run; setting the holder's `object` to nil lets it go.
    func keep(_ object: AnyObject) -> Holder {
        let holder = Holder(object)
        kept.append(holder)
        return holder
    }

    /// Marks `label` on the timeline `name`, now.
    func note(_ label: String, on name: String) {
        let event = Recorded(time: scheduler.now, value: Event<SpecItem>.next(.value(.string(label))))
        if let index = timelines.firstIndex(where: { $0.name == name }) {
            timelines[index].events.append(event)
        } else {
            timelines.append((name, [event]))
        }
    }
}

/// An object for `withUnretained`, named in the diagram.
final class SpecObject {
    let name: String
    init(name: String) { self.name = name }
}

/// A strong reference the run may drop at a frame.
final class Holder {
    var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}

/// The event a value written as `next(v)`, `completed` or `error` stands for (what `materialize` emits).
func event(described value: SpecValue) throws -> Event<SpecItem> {
    let text = value.description
    if text == "completed" { return .completed }
    if text == "error" || text.hasPrefix("error(") { return .error(EvaluationError(text)) }
    if text.hasPrefix("next("), text.hasSuffix(")") {
        let inner = String(text.dropFirst(5).dropLast())
        return .next(.value(Int(inner).map(SpecValue.int) ?? .string(inner)))
    }
    throw NotAnEvent(value: value)
}

/// The value of a plain item; an inner observable where a value is needed is an error.
func plain(_ item: SpecItem) throws -> SpecValue {
    switch item {
    case .value(let v): return v
    case .inner(let name, _): throw EvaluationError("'\(name)' is an inner observable, not a value")
    }
}

/// The inner observable of an item of a higher-order stream.
func innerObservable(_ item: SpecItem) throws -> Observable<SpecItem> {
    switch item {
    case .inner(_, let stream): return stream.observable
    case .value(let v): throw MissingInnerObservable(value: v)
    }
}

/// A higher-order operator met a plain value: the spec lacks its `inner` line. The runner turns
/// this into a located spec error instead of drawing an error event.
/// An error that means the spec is wrong, not the operator: reported at the operator line
/// instead of drawn as a cross.
protocol SpecMistake: Error, CustomStringConvertible {}

/// A `dematerialize` input value that names no event.
struct NotAnEvent: SpecMistake {
    var value: SpecValue
    var description: String { "'\(value)' is not an event: write next(v), completed or error" }
}

struct MissingInnerObservable: SpecMistake {
    var value: SpecValue
    var description: String { "'\(value)' is a value, not an inner observable (define it with 'inner \(value): ...')" }
}

extension SpecValue {
    var truthy: Bool {
        get throws {
            guard case .bool(let b) = self else { throw EvaluationError("expected true or false, got \(literal)") }
            return b
        }
    }
}

/// Every operator a spec may name.
public enum OperatorRegistry {
    typealias P = OperatorDefinition.Parameter

    static func fn(_ names: String..., name: String = "expression") -> P {
        P(label: nil, kind: .function(names), optional: false, name: name)
    }
    static func optionalCombiner() -> P { P(label: nil, kind: .function(["$inputs"]), optional: true, name: "expression") }
    static func frames(_ name: String = "duration", label: String? = nil, optional: Bool = false) -> P {
        P(label: label, kind: .frames, optional: optional, name: name)
    }
    static func count(_ name: String = "count", label: String? = nil, optional: Bool = false) -> P {
        P(label: label, kind: .count, optional: optional, name: name)
    }
    static func value(_ name: String = "value") -> P { P(label: nil, kind: .value, optional: false, name: name) }
    static func bool(_ label: String) -> P { P(label: label, kind: .bool, optional: true, name: "true|false") }
    static func optionalFn(_ names: String..., name: String = "expression") -> P {
        P(label: nil, kind: .function(names), optional: true, name: name)
    }
    static func labelledFn(_ label: String, _ names: String..., name: String) -> P {
        P(label: label, kind: .function(names), optional: true, name: name)
    }

    static func def(
        _ name: String, _ summary: String, inputs: ClosedRange<Int> = 1...1, higherOrder: Bool = false, connectable: Bool = false,
        _ parameters: [P] = [], _ build: @escaping @Sendable (OperatorContext) throws -> Observable<SpecItem>
    ) -> OperatorDefinition {
        OperatorDefinition(
            name: name, summary: summary, inputs: inputs, parameters: parameters, higherOrder: higherOrder, connectable: connectable,
            build: build)
    }

    /// Combines the inputs' values with the optional combiner, else joins their labels.
    static func combiner(_ c: OperatorContext) -> ([SpecItem]) throws -> SpecItem {
        let f = c.function(0)
        return { items in
            let values = try items.map(plain)
            if let f { return .value(try f(values)) }
            return .value(.string(values.map(\.description).joined()))
        }
    }

    /// The definitions, by name.
    public static let all: [String: OperatorDefinition] = Dictionary(uniqueKeysWithValues: definitions.map { ($0.name, $0) })

    /// The definitions, in documentation order.
    public static let definitions: [OperatorDefinition] =
        [
            // Transforming
            def("map", "transforms each value", [fn("x")]) { c in
                let f = c.function(0)!
                return c.source.map { .value(try f([try plain($0)])) }
            },
            def("scan", "emits each running accumulation", [value("seed"), fn("acc", "x")]) { c in
                let f = c.function(1)!
                return c.source.scan(SpecItem.value(try c.constant(0))) { acc, x in .value(try f([try plain(acc), try plain(x)])) }
            },
            def("reduce", "emits the final accumulation when the source completes", [value("seed"), fn("acc", "x")]) { c in
                let f = c.function(1)!
                return c.source.reduce(SpecItem.value(try c.constant(0))) { acc, x in .value(try f([try plain(acc), try plain(x)])) }
            },
            def("startWith", "emits a value first", [value()]) { c in
                c.source.startWith(.value(try c.constant(0)))
            },
            def("pairwise", "emits each value with the one before it") { c in
                c.source.pairwise().map { .value(.string("\($0)\($1)")) }
            },
            def("buffer", "emits arrays of count values", [count()]) { c in
                let n = try c.count(0)
                guard n > 0 else { throw EvaluationError("buffer needs a positive count") }
                return c.source.buffer(count: n).map { .value(.list(try $0.map(plain))) }
            },
            def("bufferTime", "emits the values of each time window", [frames(), count(label: "count", optional: true)]) { c in
                let span = try c.frames(0)
                let n = try c.count(1, default: .max)
                guard span > .zero, n > 0 else { throw EvaluationError("bufferTime needs a positive window and count") }
                return c.source.buffer(timeSpan: span, count: n, scheduler: c.scheduler).map { .value(.list(try $0.map(plain))) }
            },
            def("materialize", "turns events into values") { c in
                c.source.materialize().map { event in
                    switch event {
                    case .next(let v): return .value(.string("next(\(v))"))
                    case .error: return .value(.string("error"))
                    case .completed: return .value(.string("completed"))
                    }
                }
            },
            // Filtering
            def("filter", "passes the values for which the expression holds", [fn("x")]) { c in
                let f = c.function(0)!
                return c.source.filter { try f([try plain($0)]).truthy }
            },
            def("take", "emits the first count values, then completes", [count()]) { c in c.source.take(try c.count(0)) },
            def("takeLast", "emits the last count values at completion", [count()]) { c in c.source.takeLast(try c.count(0)) },
            def("takeWhile", "emits while the expression holds", [fn("x")]) { c in
                let f = c.function(0)!
                return c.source.take(while: { try f([try plain($0)]).truthy })
            },
            def("takeUntil", "mirrors the first input until the second emits", inputs: 2...2) { c in c.source.take(until: c.inputs[1]) },
            def("skip", "drops the first count values", [count()]) { c in c.source.skip(try c.count(0)) },
            def("skipWhile", "drops values while the expression holds", [fn("x")]) { c in
                let f = c.function(0)!
                return c.source.skip(while: { try f([try plain($0)]).truthy })
            },
            def("skipUntil", "drops values until the second input emits", inputs: 2...2) { c in c.source.skip(until: c.inputs[1]) },
            def("distinctUntilChanged", "drops values equal to the one before") { c in
                c.source.distinctUntilChanged { try plain($0) == plain($1) }
            },
            def(
                "first", "emits the first value (for which the expression holds) and completes; at completion the default, else an error",
                [optionalFn("x", name: "predicate"), P(label: "default", kind: .value, optional: true, name: "value")]
            ) { c in
                let f = c.function(0)
                let predicate: (SpecItem) throws -> Bool = { item in try f.map { try $0([try plain(item)]).truthy } ?? true }
                if c.arguments[1] != nil { return c.source.first(where: predicate, default: .value(try c.constant(1))) }
                return c.source.first(where: predicate)
            },
            def("last", "emits the last value at completion (errors when empty)") { c in c.source.last() },
            def("elementAt", "emits the value at an index", [count("index")]) { c in c.source.elementAt(try c.count(0)) },
            def("ignoreElements", "keeps only completion or error") { c in c.source.ignoreElements() },
            def("distinct", "drops values seen before") { c in c.source.distinct(by: { try plain($0) }) },
            def(
                "single", "emits the only value (for which the expression holds) at completion; a second one or none is an error",
                [optionalFn("x", name: "predicate")]
            ) { c in
                guard let f = c.function(0) else { return c.source.single() }
                return c.source.single { try f([try plain($0)]).truthy }
            },
            def(
                "repeat", "subscribes to the source count times in a row (without end without a count), after a delay if given",
                [count(optional: true), frames("delay", label: "delay", optional: true)]
            ) { c in
                let count = c.arguments[0] == nil ? nil : try c.count(0)
                if c.arguments[1] != nil { return c.source.repeat(count, delay: try c.frames(1), scheduler: c.scheduler) }
                return count.map { c.source.repeat($0) } ?? c.source.repeat()
            },
            def("asMaybe", "emits the value, if any, at completion; a second value is an error") { c in
                c.source.asMaybe().asObservable()
            },
            def("asCompletable", "drops the values, keeping completion and error") { c in
                c.source.asCompletable().asObservable().map { _ -> SpecItem in }
            },
            def("takeFor", "emits values for a duration, then completes", [frames()]) { c in
                c.source.take(for: try c.frames(0), scheduler: c.scheduler)
            },
            def("skipFor", "drops values for a duration", [frames()]) { c in c.source.skip(for: try c.frames(0), scheduler: c.scheduler) },
            def("bufferCount", "emits arrays of count values, a new one every skip values", [count(), count("skip")]) { c in
                let n = try c.count(0)
                let skip = try c.count(1)
                guard n > 0, skip > 0 else { throw EvaluationError("bufferCount needs a positive count and skip") }
                return c.source.buffer(count: n, skip: skip).map { .value(.list(try $0.map(plain))) }
            },
            def("auditTime", "after a value, waits, then emits the latest value", [frames()]) { c in
                c.source.audit(try c.frames(0), scheduler: c.scheduler)
            },
            def(
                "audit", "after a value, waits the frames the expression gives for it, then emits the latest value",
                [fn("x", name: "frames")]
            ) {
                c in
                let f = c.function(0)!
                return c.source.audit { item in try c.timer(frames: f([try plain(item)]), for: "audit") }
            },
            def(
                "throttleWhen", "emits a value, then ignores values for the frames the expression gives for it (RxJS throttle)",
                [fn("x", name: "frames"), bool("leading"), bool("trailing")]
            ) { c in
                let f = c.function(0)!
                return c.source.throttle(leading: try c.bool(1, default: true), trailing: try c.bool(2, default: false)) { item in
                    try c.timer(frames: f([try plain(item)]), for: "throttleWhen")
                }
            },
            def("sampleTime", "emits the latest new value every period", [frames("period")]) { c in
                let period = try c.frames(0)
                guard period > .zero else { throw EvaluationError("sampleTime's period must be at least 1 frame") }
                return c.source.sample(every: period, scheduler: c.scheduler)
            },
            def(
                "min", "emits the smallest value at completion (by the comparison a < b, if given)",
                [optionalFn("a", "b", name: "comparison")]
            ) { c in
                if let less = c.function(0) { return c.source.min { try less([try plain($0), try plain($1)]).truthy } }
                return c.source.map { OrderedSpecValue(value: try plain($0)) }.min().map { .value($0.value) }
            },
            def(
                "max", "emits the largest value at completion (by the comparison a < b, if given)",
                [optionalFn("a", "b", name: "comparison")]
            ) { c in
                if let less = c.function(0) { return c.source.max { try less([try plain($0), try plain($1)]).truthy } }
                return c.source.map { OrderedSpecValue(value: try plain($0)) }.max().map { .value($0.value) }
            },
            def("find", "emits the first value for which the expression holds, or nil at completion", [fn("x")]) { c in
                let f = c.function(0)!
                return c.source.find { try f([try plain($0)]).truthy }.map { $0 ?? .value(.string("nil")) }
            },
            def("findIndex", "emits the index of the first value for which the expression holds, or -1 at completion", [fn("x")]) { c in
                let f = c.function(0)!
                return c.source.firstIndex { try f([try plain($0)]).truthy }.map { .value(.int($0)) }
            },
            def("timestamp", "replaces each value by the frame it arrived at") { c in
                let frame = c.scheduler.frame
                return c.source.timestamp(scheduler: c.scheduler).map { .value(.int(Int($0.time / frame))) }
            },
            def("timeInterval", "replaces each value by the frames since the previous one") { c in
                let frame = c.scheduler.frame
                return c.source.timeInterval(scheduler: c.scheduler).map { .value(.int(Int($0.interval / frame))) }
            },
            def("enumerated", "pairs each value with its index") { c in
                c.source.enumerated().map { .value(.string("\($0.index)\($0.element)")) }
            },
            def("skipLast", "drops the last count values (emits each once count newer ones arrived)", [count()]) { c in
                c.source.skipLast(try c.count(0))
            },
            def("endWith", "emits a value after the source completes", [value()]) { c in
                c.source.endWith(.value(try c.constant(0)))
            },
            def("throwIfEmpty", "fails a source that completes without a value") { c in c.source.throwIfEmpty() },
            def("count", "emits how many values the source had, at completion") { c in c.source.count().map { .value(.int($0)) } },
            def("isEmpty", "emits false at the first value, or true at an empty completion") { c in
                c.source.isEmpty().map { .value(.bool($0)) }
            },
            def("every", "emits false at the first value failing the expression, or true at completion", [fn("x")]) { c in
                let f = c.function(0)!
                return c.source.every { try f([try plain($0)]).truthy }.map { .value(.bool($0)) }
            },
            def("ifEmpty", "emits a default when the source completes empty", [value("default")]) { c in
                c.source.ifEmpty(default: .value(try c.constant(0)))
            },
            // Combining
            def(
                "merge", "interleaves the inputs (or the inner observables of one input)", inputs: 1...8, higherOrder: true,
                [count("maxConcurrent", label: "maxConcurrent", optional: true)]
            ) { c in
                if c.inputs.count == 1 { return c.source.flatMap(maxConcurrent: try c.count(0, default: .max)) { try innerObservable($0) } }
                return Observable.merge(c.inputs, maxConcurrent: try c.count(0, default: .max))
            },
            def("concat", "subscribes to one input (or inner observable) after another", inputs: 1...8, higherOrder: true) { c in
                if c.inputs.count == 1 { return c.source.concatMap { try innerObservable($0) } }
                return Observable.concat(c.inputs)
            },
            def(
                "flatMap", "merges the inner observables, at most maxConcurrent at once", higherOrder: true,
                [count("maxConcurrent", label: "maxConcurrent", optional: true)]
            ) { c in
                c.source.flatMap(maxConcurrent: try c.count(0, default: .max)) { try innerObservable($0) }
            },
            def("concatMap", "subscribes to the inner observables one after another", higherOrder: true) { c in
                c.source.concatMap { try innerObservable($0) }
            },
            def("flatMapLatest", "switches to each new inner observable (RxJS switchMap)", higherOrder: true) { c in
                c.source.flatMapLatest { try innerObservable($0) }
            },
            def("switchLatest", "mirrors the latest inner observable", higherOrder: true) { c in
                c.source.flatMapLatest { try innerObservable($0) }
            },
            def("exhaustAll", "mirrors an inner observable, ignoring those arriving while it runs", higherOrder: true) { c in
                c.source.map { try innerObservable($0) }.exhaustAll()
            },
            def("combineLatestAll", "combines the inner observables once the outer one completes", higherOrder: true) { c in
                c.source.map { try innerObservable($0) }.combineLatestAll().map { .value(.list(try $0.map(plain))) }
            },
            def("zipAll", "zips the inner observables once the outer one completes", higherOrder: true) { c in
                c.source.map { try innerObservable($0) }.zipAll().map { .value(.list(try $0.map(plain))) }
            },
            def("flatMapFirst", "ignores new inner observables while one is active (RxJS exhaustMap)", higherOrder: true) { c in
                c.source.flatMapFirst { try innerObservable($0) }
            },
            def(
                "generate", "emits a state, then the next one, while the condition holds", inputs: 0...0,
                [value("initial"), fn("x", name: "condition"), fn("x", name: "iterate")]
            ) { c in
                let condition = c.function(1)!
                let iterate = c.function(2)!
                return Observable.generate(
                    initialState: try c.constant(0), condition: { try condition([$0]).truthy }, iterate: { try iterate([$0]) }
                ).map { .value($0) }
            },
            def("bufferNotifier", "emits what the first input collected whenever the second emits (RxJS buffer)", inputs: 2...2) { c in
                c.inputs[0].buffer(c.inputs[1]).map { .value(.list(try $0.map(plain))) }
            },
            def("sequenceEqual", "emits whether both inputs emit the same values in order", inputs: 2...2) { c in
                c.inputs[0].map { try plain($0) }.sequenceEqual(c.inputs[1].map { try plain($0) }).map { .value(.bool($0)) }
            },
            def("forkJoin", "emits every input's last value when all have completed", inputs: 2...8) { c in
                Observable.forkJoin(c.inputs).map { .value(.list(try $0.map(plain))) }
            },
            def("combineLatest", "combines the latest value of every input", inputs: 2...8, [optionalCombiner()]) { c in
                let combine = combiner(c)
                return Observable.combineLatest(c.inputs).map(combine)
            },
            def("zip", "pairs the n-th values of the inputs", inputs: 2...8, [optionalCombiner()]) { c in
                let combine = combiner(c)
                return Observable.zip(c.inputs).map(combine)
            },
            def(
                "withLatestFrom", "combines each value of the first input with the latest of the second", inputs: 2...2,
                [optionalCombiner()]
            ) {
                c in
                let combine = combiner(c)
                return c.source.withLatestFrom(c.inputs[1]) { try combine([$0, $1]) }
            },
            def("amb", "mirrors whichever input emits first (RxJS race)", inputs: 2...8) { c in Observable.amb(c.inputs) },
            // Timing
            def("debounce", "emits a value once the source is quiet for a duration", [frames()]) { c in
                c.source.debounce(try c.frames(0), scheduler: c.scheduler)
            },
            def(
                "throttle", "emits a value, then ignores values for a duration",
                [frames(), bool("latest"), bool("leading"), bool("trailing")]
            ) { c in
                let latest = try c.bool(1, default: true)
                return c.source.throttle(
                    try c.frames(0), leading: try c.bool(2, default: true), trailing: try c.bool(3, default: latest), scheduler: c.scheduler
                )
            },
            def("delayWhen", "delays each value by the frames the expression gives for it", [fn("x", name: "frames")]) { c in
                let f = c.function(0)!
                return c.source.delayWhen { item -> Observable<Int> in
                    guard case .int(let n) = try f([try plain(item)]), n >= 0 else {
                        throw EvaluationError("delayWhen needs whole frames ≥ 0")
                    }
                    return Observable<Int>.timer(c.scheduler.frame * n, scheduler: c.scheduler)
                }
            },
            def("delayUntil", "holds values until a frame, then passes them in order (RxJS delay(date))", [frames("frame")]) { c in
                c.source.delay(until: try c.frames(0), scheduler: c.scheduler)
            },
            def("delay", "shifts every value later", [frames()]) { c in c.source.delay(try c.frames(0), scheduler: c.scheduler) },
            def("delaySubscription", "subscribes later", [frames()]) { c in
                c.source.delaySubscription(try c.frames(0), scheduler: c.scheduler)
            },
            def("sample", "emits the latest value when the second input emits", inputs: 2...2) { c in c.source.sample(c.inputs[1]) },
            def("timeout", "fails (or switches to the second input) when no event comes in time", inputs: 1...2, [frames()]) { c in
                if c.inputs.count == 2 { return c.source.timeout(try c.frames(0), other: c.inputs[1], scheduler: c.scheduler) }
                return c.source.timeout(try c.frames(0), scheduler: c.scheduler)
            },
            def("interval", "emits 0, 1, 2, … every period", inputs: 0...0, [frames("period")]) { c in
                let period = try c.frames(0)
                guard period > .zero else {
                    throw EvaluationError("interval's period must be at least 1 frame (0 emits forever at frame 0)")
                }
                return Observable<Int>.interval(period, scheduler: c.scheduler).map { .value(.int($0)) }
            },
            def("timer", "emits 0 after a duration", inputs: 0...0, [frames()]) { c in
                Observable<Int>.timer(try c.frames(0), scheduler: c.scheduler).map { .value(.int($0)) }
            },
            // Errors
            def("catch", "continues with the second input after an error", inputs: 2...2) { c in
                let fallback = c.inputs[1]
                return c.source.catch { _ in fallback }
            },
            def("catchAndReturn", "ends with a value after an error", [value()]) { c in
                c.source.catchAndReturn(.value(try c.constant(0)))
            },
            def("retry", "resubscribes after an error, count times (every time without a count)", [count(optional: true)]) { c in
                c.arguments[0] == nil ? c.source.retry() : c.source.retry(try c.count(0))
            },
        ] + accumulating + windowing + utility + sharing

    static let accumulating: [OperatorDefinition] = [
        def(
            "mergeScan", "accumulates through inners that emit the expression after a delay, merged",
            [value("seed"), fn("acc", "x"), frames(), count(label: "concurrent", optional: true)]
        ) { c in
            let f = c.function(1)!
            let delay = try c.frames(2)
            return c.source.mergeScan(SpecItem.value(try c.constant(0)), maxConcurrent: try c.count(3, default: .max)) { acc, x in
                c.delayed(try f([try plain(acc), try plain(x)]), by: delay)
            }
        },
        def(
            "switchScan", "accumulates through inners that emit the expression after a delay, switching",
            [value("seed"), fn("acc", "x"), frames()]
        ) { c in
            let f = c.function(1)!
            let delay = try c.frames(2)
            return c.source.switchScan(SpecItem.value(try c.constant(0))) { acc, x in
                c.delayed(try f([try plain(acc), try plain(x)]), by: delay)
            }
        },
        def(
            "expand", "emits each value and feeds the expression of it back in after a delay, while the condition holds",
            [fn("x"), frames(), labelledFn("while", "x", name: "condition"), count(label: "concurrent", optional: true)]
        ) { c in
            let f = c.function(0)!
            let condition = c.function(2)
            let delay = try c.frames(1)
            return c.source.expand(maxConcurrent: try c.count(3, default: .max)) { item -> Observable<SpecItem> in
                let x = try plain(item)
                if let condition, try !condition([x]).truthy { return .empty() }
                return c.delayed(try f([x]), by: delay)
            }
        },
    ]

    static let windowing: [OperatorDefinition] = [
        def("windowCount", "splits into windows of count values, a new one every skip values", [count(), count("skip", optional: true)]) {
            c in
            let n = try c.count(0)
            let skip = try c.count(1, default: n)
            guard n > 0, skip > 0 else { throw EvaluationError("windowCount needs a positive count and skip") }
            return c.lettered(c.source.window(count: n, skip: skip))
        },
        def(
            "windowTime", "splits into windows of a duration: consecutive (closed early at count values), or opened every shift",
            [frames(), count(label: "count", optional: true), frames("shift", label: "every", optional: true)]
        ) { c in
            let span = try c.frames(0)
            guard span > .zero else { throw EvaluationError("windowTime needs a window of at least 1 frame") }
            if c.arguments[2] != nil {
                let shift = try c.frames(2)
                guard shift > .zero else { throw EvaluationError("windowTime needs a shift of at least 1 frame") }
                return c.lettered(c.source.window(timeSpan: span, timeShift: shift, scheduler: c.scheduler))
            }
            if c.arguments[1] != nil {
                let count = try c.count(1)
                guard count > 0 else { throw EvaluationError("windowTime needs a count of at least 1") }
                return c.lettered(c.source.window(timeSpan: span, count: count, scheduler: c.scheduler))
            }
            return c.lettered(c.source.window(timeSpan: span, scheduler: c.scheduler))
        },
        def("window", "splits into a new window whenever the second input emits", inputs: 2...2) { c in
            c.lettered(c.source.window(c.inputs[1]))
        },
        def("windowToggle", "opens a window at each value of the second input, closing it after a duration", inputs: 2...2, [frames()]) {
            c in
            let span = try c.frames(0)
            return c.lettered(c.source.window(toggle: c.inputs[1]) { _ in Observable<Int>.timer(span, scheduler: c.scheduler) })
        },
        def("windowWhen", "splits into consecutive windows, each closed when a timer of a duration fires", [frames()]) { c in
            let span = try c.frames(0)
            guard span > .zero else { throw EvaluationError("windowWhen needs a window of at least 1 frame") }
            return c.lettered(c.source.window(closing: { Observable<Int>.timer(span, scheduler: c.scheduler) }))
        },
        def("groupBy", "emits a group per key the expression gives, named by the key", [fn("x", name: "key")]) { c in
            let f = c.function(0)!
            return c.source.groupBy { try f([try plain($0)]) }.map { group in c.emitted(group, name: group.key.description) }
        },
        def("partition", "splits into values that satisfy the expression (T) and the rest (F)", [fn("x")]) { c in
            let f = c.function(0)!
            let (matching, rest) = c.source.partition { try f([try plain($0)]).truthy }
            return Observable.deferred { Observable.of(c.emitted(matching, name: "T"), c.emitted(rest, name: "F")) }
        },
    ]

    static let utility: [OperatorDefinition] = [
        def("then", "ignores the first input's values, then continues with the second (ReactiveCocoa then:)", inputs: 2...2) { c in
            c.source.then { c.inputs[1] }
        },
        def("takeUntilReplacement", "passes the first input until the second sends anything, then the second", inputs: 2...2) { c in
            c.source.take(untilReplacedBy: c.inputs[1])
        },
        def("contains", "emits true at the first value satisfying the expression, false at an empty completion", [fn("x")]) { c in
            let f = c.function(0)!
            return c.source.contains { try f([try plain($0)]).truthy }.map { .value(.bool($0)) }
        },
        def("combinePrevious", "combines each value with the one before, the first with start", [value("start"), fn("previous", "x")]) {
            c in
            let f = c.function(1)!
            return c.source.combinePrevious(SpecItem.value(try c.constant(0))) { p, x in .value(try f([try plain(p), try plain(x)])) }
        },
        def("compactMap", "transforms each value, dropping those that become nil", [fn("x")]) { c in
            let f = c.function(0)!
            return c.source.compactMap { item -> SpecItem? in
                let result = try f([try plain(item)])
                return result == .null ? nil : .value(result)
            }
        },
        def("toArray", "collects every value into one list, emitted at completion") { c in
            c.source.toArray().map { items in .value(.list(try items.map(plain))) }
        },
        def("dematerialize", "turns values written as next(v), completed or error back into events") { c in
            c.source.map { item -> Event<SpecItem> in try event(described: try plain(item)) }.dematerialize()
        },
        def("element", "emits the value at an index and completes (element(at:))", [count("index", label: "at")]) { c in
            c.source.element(at: try c.count(0))
        },
        def("do", "passes everything through, running a side effect per value (drawn on its own line: the expression's result)", [fn("x")])
        {
            c in
            let f = c.function(0)!
            return c.source.do(onNext: { c.effects.note(try f([try plain($0)]).description, on: "do") })
        },
        def(
            "finalize", "passes everything through, then runs an action once the subscription ends (drawn on its own line)",
            [P(label: nil, kind: .value, optional: true, name: "label")]
        ) { c in
            let label = c.arguments[0] != nil ? try c.constant(0).description : "f"
            return c.source.finalize { c.effects.note(label, on: "finalize") }
        },
        def(
            "withUnretained", "pairs each value with an object held weakly; completes at the first value after the object is gone",
            [value("object"), frames("release", label: "releasedAt", optional: true)]
        ) { c in
            let owner = SpecObject(name: try c.constant(0).description)
            if c.arguments[1] != nil {
                let holder = c.effects.keep(owner)
                _ = c.scheduler.schedule(after: try c.frames(1)) { holder.object = nil }
            } else {
                _ = c.effects.keep(owner)
            }
            return c.source.withUnretained(owner) { object, item in .value(.string("(\(object.name), \(try plain(item)))")) }
        },
    ]

    static let sharing: [OperatorDefinition] = [
        def(
            "share", "shares one subscription to the source among the subscribers; late ones get the last replay values",
            [count("replay", label: "replay", optional: true)]
        ) { c in
            c.source.share(replay: try c.count(0, default: 0))
        },
        def("publish", "shares one subscription to the source from connect() until that connection is disposed", connectable: true) { c in
            c.connecting(c.source.publish())
        },
        def(
            "multicast", "like publish, through a subject made per connection: a replay subject of the given size, else a publish subject",
            connectable: true, [count("replay", label: "replay", optional: true)]
        ) { c in
            let size = try c.count(0, default: 0)
            return c.connecting(
                c.source.multicast { () -> any SubjectType<SpecItem> in size > 0 ? ReplaySubject(bufferSize: size) : PublishSubject() })
        },
        def("refCount", "publish, connected at the first subscriber and disconnected when the last one leaves") { c in
            c.source.publish().refCount()
        },
        def("autoconnect", "publish, connected at the first subscriber and never disconnected by subscribers") { c in
            c.source.publish().autoconnect()
        },
    ]

    /// RxJS 7 names that a spec calls otherwise, as docs/operator-mapping.md maps them: a spec
    /// ported from RxJS gets the operator that means the same, not the nearest spelling
    /// (`switchMap` is `flatMapLatest`, not `switchScan`).
    package static let rxjsNames: [String: String] = [
        "mergeMap": "flatMap", "flatMapTo": "flatMap", "mergeAll": "merge", "switchMap": "flatMapLatest",
        "switchAll": "switchLatest", "exhaustMap": "flatMapFirst", "concatAll": "concat", "catchError": "catch",
        "throttleTime": "throttle", "debounceTime": "debounce", "tap": "do",
    ]

    /// The operator a spec probably meant: the RxJS name's counterpart, else the closest name,
    /// for "did you mean".
    static func suggestion(for name: String) -> String? {
        if let mapped = rxjsNames[name], all[mapped] != nil { return mapped }
        let lower = name.lowercased()
        return all.keys.min { distance($0.lowercased(), lower) < distance($1.lowercased(), lower) }
            .flatMap { distance($0.lowercased(), lower) <= max(2, lower.count / 3) ? $0 : nil }
    }

    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }
}

/// Orders spec values for `min` and `max`: numbers by value, anything else by its text.
struct OrderedSpecValue: Comparable {
    var value: SpecValue

    private var number: Double? {
        switch value {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    static func < (a: OrderedSpecValue, b: OrderedSpecValue) -> Bool {
        if let x = a.number, let y = b.number { return x < y }
        return a.value.description < b.value.description
    }
}
