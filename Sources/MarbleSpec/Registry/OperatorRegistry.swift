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
    typealias Parameter = OperatorDefinition.Parameter

    // The parameters a definition lists, each named by the kind it builds.
    static func function(_ names: String..., name: String = "expression") -> Parameter {
        Parameter(label: nil, kind: .function(names), optional: false, name: name)
    }
    static func optionalCombiner() -> Parameter { Parameter(label: nil, kind: .function(["$inputs"]), optional: true, name: "expression") }
    static func frames(_ name: String = "duration", label: String? = nil, optional: Bool = false) -> Parameter {
        Parameter(label: label, kind: .frames, optional: optional, name: name)
    }
    static func count(_ name: String = "count", label: String? = nil, optional: Bool = false) -> Parameter {
        Parameter(label: label, kind: .count, optional: optional, name: name)
    }
    static func value(_ name: String = "value") -> Parameter { Parameter(label: nil, kind: .value, optional: false, name: name) }
    static func bool(_ label: String) -> Parameter { Parameter(label: label, kind: .bool, optional: true, name: "true|false") }
    static func optionalFunction(_ names: String..., name: String = "expression") -> Parameter {
        Parameter(label: nil, kind: .function(names), optional: true, name: name)
    }
    static func labelledFunction(_ label: String, _ names: String..., name: String) -> Parameter {
        Parameter(label: label, kind: .function(names), optional: true, name: name)
    }

    static func definition(
        _ name: String, _ summary: String, inputs: ClosedRange<Int> = 1...1, higherOrder: Bool = false, connectable: Bool = false,
        _ parameters: [Parameter] = [], _ build: @escaping @Sendable (OperatorContext) throws -> Observable<SpecItem>
    ) -> OperatorDefinition {
        OperatorDefinition(
            name: name, summary: summary, inputs: inputs, parameters: parameters, higherOrder: higherOrder, connectable: connectable,
            build: build)
    }

    /// Combines the inputs' values with the optional combiner, else joins their labels.
    static func combiner(_ context: OperatorContext) -> ([SpecItem]) throws -> SpecItem {
        let f = context.function(0)
        return { items in
            let values = try items.map(plain)
            if let f { return .value(try f(values)) }
            return .value(.string(values.map(\.description).joined()))
        }
    }

    /// The definitions, by name.
    public static let all: [String: OperatorDefinition] = Dictionary(uniqueKeysWithValues: definitions.map { ($0.name, $0) })

    /// The definitions, in documentation order: family by family, as in Core/Operators.
    public static let definitions: [OperatorDefinition] =
        transforming + filtering + aggregating + timing + flattening + combining + errorHandling + windowing + sideEffects + utility
        + creation + traits + sharing

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
        return all.keys.min { EditDistance.between($0.lowercased(), lower) < EditDistance.between($1.lowercased(), lower) }
            .flatMap { EditDistance.between($0.lowercased(), lower) <= max(2, lower.count / 3) ? $0 : nil }
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
