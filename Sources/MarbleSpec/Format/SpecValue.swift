/// A value in a diagram spec: a number, a string, a boolean or a list (what `buffer` emits).
public enum SpecValue: Hashable, Sendable, CustomStringConvertible {
    /// A whole number.
    case int(Int)
    /// A number with a fraction.
    case double(Double)
    /// Text.
    case string(String)
    /// `true` or `false`.
    case bool(Bool)
    /// A list (`buffer`, `toArray`).
    case list([SpecValue])
    /// No value: `nil` in a spec, what `compactMap` drops.
    case null

    /// The label drawn on a marble.
    public var description: String {
        switch self {
        case .int(let v): return String(v)
        case .double(let v):
            if v == v.rounded(), abs(v) < 1e15 { return String(Int(v)) }
            return String(v)
        case .string(let v): return v
        case .bool(let v): return String(v)
        case .list(let items): return "[" + items.map(\.description).joined(separator: ",") + "]"
        case .null: return "nil"
        }
    }

    /// The value as written in a spec (strings quoted).
    public var literal: String {
        switch self {
        case .string(let v):
            return "\"" + v.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .list(let items): return "[" + items.map(\.literal).joined(separator: ", ") + "]"
        default: return description
        }
    }
}

/// What a spec's streams carry: a value, or (in higher-order inputs) a named inner observable.
public enum SpecItem: CustomStringConvertible {
    /// A plain value.
    case value(SpecValue)
    /// An inner observable, by its `inner NAME:` line.
    case inner(name: String, InnerStream)

    public var description: String {
        switch self {
        case .value(let v): return v.description
        case .inner(let name, _): return name
        }
    }
}

/// An inner observable of a higher-order input, named in the spec, or one an operator emitted
/// (named by the operator); it logs its subscriptions so the renderer can fade what an operator
/// unsubscribed from.
public final class InnerStream {
    let name: String
    let observable: Observable<SpecItem>
    let subscriptions: () -> [SubscriptionLog]
    /// Per subscription, how many of `messages` (from the first) reached the subscriber, as the
    /// run delivered them; `nil` for a stream whose events are all delivered by construction (one
    /// an operator emitted, recorded from what it sent).
    let delivered: (() -> [Int])?
    /// Its events relative to its start: parsed for an `inner` line, recorded as they happen for
    /// one an operator emitted (a window, a group).
    var messages: [Recorded<Event<SpecItem>>]

    init(
        name: String, observable: Observable<SpecItem>, messages: [Recorded<Event<SpecItem>>],
        delivered: (() -> [Int])? = nil, subscriptions: @escaping () -> [SubscriptionLog]
    ) {
        self.name = name
        self.observable = observable
        self.messages = messages
        self.delivered = delivered
        self.subscriptions = subscriptions
    }

    /// `source`, counting per subscription the events it passes on: an event the source never
    /// sent (its subscriber left first, even at the same frame) is not counted.
    static func counting(_ source: Observable<SpecItem>) -> (observable: Observable<SpecItem>, delivered: () -> [Int]) {
        final class Counts { var values: [Int] = [] }
        let counts = Counts()
        let observable = Observable<SpecItem>.create { observer in
            let index = counts.values.count
            counts.values.append(0)
            return source.subscribe { event in
                counts.values[index] += 1
                observer.on(event)
            }
        }
        return (observable, { counts.values })
    }
}
