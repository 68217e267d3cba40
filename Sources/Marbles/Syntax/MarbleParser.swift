extension MarbleDiagram {
    /// Which rules a diagram follows.
    public enum Kind: Sendable {
        /// A cold observable: times count from each subscription; no `^`.
        case cold
        /// A hot observable: `^` marks frame 0; earlier characters are negative frames.
        case hot
        /// An expected output: `^` allowed; nothing may follow `|` or `#`.
        case expected
    }
}

extension MarbleDiagram {
    /// Reads marble diagrams into timed events; see ``MarbleDiagram/Symbol`` for the language.
    ///
    /// ```swift
    /// let events = try MarbleDiagram.Parser().parse("--a-(bc)-|", kind: .cold)
    /// // a @ 2ms, b @ 4ms, c @ 4ms, completed @ 9ms
    /// ```
    public struct Parser: Sendable {
        /// The virtual time one frame stands for.
        public let frame: Duration
        @usableFromInline let frameNanos: Int64

        /// Creates a parser; one frame is 1 ms unless told otherwise.
        public init(frame: Duration = .milliseconds(1)) {
            self.frame = frame
            self.frameNanos = VirtualTimeScheduler.nanos(frame)
        }

        /// Parses a diagram whose values are its own characters (or quoted texts).
        public func parse(_ diagram: String, kind: MarbleDiagram.Kind, error: any Error = MarbleError.boxed) throws(MarbleDiagram
            .SyntaxError) -> [Recorded<
                Event<String>
            >]
        {
            try parse(diagram, kind: kind, error: error) { $0 }
        }

        /// Parses a diagram, mapping each value's key through `values`; a key missing from a
        /// non-empty dictionary is an error. With an empty dictionary, `Value` must be `String`
        /// or the keys are errors.
        // Inlinable, as the paths below it, so that a test's value type is specialized in the test
        // module instead of run as unspecialized generic code (metadata lookups per event).
        @inlinable
        public func parse<Value>(
            _ diagram: String, kind: MarbleDiagram.Kind, values: [String: Value], error: any Error = MarbleError.boxed
        ) throws(MarbleDiagram.SyntaxError) -> [Recorded<Event<Value>>] {
            if values.isEmpty, Value.self == String.self {
                // `Value` is `String` here, so the bit cast is the identity (and avoids a dynamic
                // cast per value).
                return try parse(diagram, kind: kind, error: error) { key in unsafeBitCast(key, to: Value.self) }
            }
            // Long diagrams look each one-character key up once, not by hashing it at every event.
            guard diagram.utf8.count > 64 else {
                // Short diagrams repeat a key more often than not (`a-a-a|`): the last lookup is
                // kept instead of hashing the key again.
                var last: (key: String, value: Value?)?
                return try parse(diagram, kind: kind, error: error) { key in
                    if let last, last.key == key { return last.value }
                    let value = values[key]
                    last = (key, value)
                    return value
                }
            }
            var looked: [Value??] = Array(repeating: nil, count: 128)
            return try parse(diagram, kind: kind, error: error) { key in
                guard key.utf8.count == 1, let byte = key.utf8.first, byte < 128 else { return values[key] }
                if let known = looked[Int(byte)] { return known }
                let found = values[key]
                looked[Int(byte)] = .some(found)
                return found
            }
        }

        /// Parses a diagram, resolving each value's key with `resolve`; `nil` is a missing value.
        // The whole loop is inlinable: specialized in the caller's module for its value type, with
        // the scanner's `next()` inlined into it, each event goes straight into the array (an event
        // returned or handed to a closure across the module boundary cost value witnesses or an
        // indirect call per event).
        @inlinable
        public func parse<Value>(
            _ diagram: String, kind: MarbleDiagram.Kind, error: any Error = MarbleError.boxed, resolve: (String) -> Value?
        ) throws(MarbleDiagram.SyntaxError) -> [Recorded<Event<Value>>] {
            try Scanner.withBytes(of: diagram) { bytes throws(MarbleDiagram.SyntaxError) in
                var events: [Recorded<Event<Value>>] = []
                events.reserveCapacity(MarbleDiagram.Parser.eventBound(bytes))
                var scanner = Scanner(bytes: bytes, frameNanos: frameNanos)
                // A missing value is reported after the whole diagram scanned cleanly, so that a
                // syntax error anywhere wins over it.
                var missing: (key: String, column: Int)?
                while let token = try scanner.next() {
                    guard try scanner.acceptEvent(token, kind: kind) else { continue }
                    let time = Duration.nanoseconds(scanner.eventTime)
                    switch token.symbol {
                    case .complete: events.append(Recorded(time: time, value: .completed))
                    case .error: events.append(Recorded(time: time, value: .error(error)))
                    default:
                        let key = scanner.key(of: token)
                        if let value = resolve(key) {
                            events.append(Recorded(time: time, value: .next(value)))
                        } else if missing == nil {
                            missing = (key, token.column)
                        }
                    }
                    scanner.eventDone()
                }
                try scanner.finish()
                if let missing { throw MarbleDiagram.SyntaxError(.missingValue(missing.key), diagram: diagram, column: missing.column) }
                if let zero = scanner.zero, zero != 0 {
                    let offset = Duration.nanoseconds(zero)
                    for i in events.indices { events[i].time -= offset }
                }
                return events
            }
        }

        /// At least the number of events a diagram can hold: for a long one, its bytes that are
        /// not frames, spaces or group brackets (one branch-free pass), so that
        /// parsing reserves once and never copies a growing array.
        @usableFromInline
        static func eventBound(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
            // A short diagram's bytes are a bound cheaper to reserve than to count.
            guard bytes.count > 256 else { return bytes.count }
            var skipped = 0
            for byte in bytes {
                // `-`, ` `, `(`, `)`, `[`, `]`
                let isFrameOrSpace = byte == 0x2D || byte == 0x20
                let isBracket = byte == 0x28 || byte == 0x29 || byte == 0x5B || byte == 0x5D
                skipped &+= isFrameOrSpace || isBracket ? 1 : 0
            }
            return bytes.count - skipped
        }

        /// One-character keys for ASCII values, made once and kept for the life of the process.
        // Immutable after its one initialization, so shared reads are safe.
        @usableFromInline nonisolated(unsafe) static let asciiKeys: UnsafePointer<String> = {
            let table = UnsafeMutablePointer<String>.allocate(capacity: 128)
            for byte in 0..<128 { (table + byte).initialize(to: String(Unicode.Scalar(UInt8(byte)))) }
            return UnsafePointer(table)
        }()

        /// Parses a subscription diagram: `^` subscribes (and costs a frame), `!` unsubscribes
        /// (and costs none). No `^` means no subscription in a subscription log, and frame 0 in
        /// `expect(_:unsubscribe:)`; a `^` after the `!` is an error.
        public func parseSubscription(_ diagram: String) throws(MarbleDiagram.SyntaxError) -> (subscribe: Duration?, unsubscribe: Duration?)
        {
            try Scanner.withBytes(of: diagram) { bytes throws(MarbleDiagram.SyntaxError) in try parseSubscription(diagram, bytes: bytes) }
        }

        private func parseSubscription(
            _ diagram: String, bytes: UnsafeBufferPointer<UInt8>
        ) throws(MarbleDiagram.SyntaxError) -> (subscribe: Duration?, unsubscribe: Duration?) {
            var scanner = Scanner(bytes: bytes, frameNanos: frameNanos)
            var subscribe: Int64?
            var unsubscribe: Int64?
            var unsubscribeColumn = 0
            func fail(_ kind: MarbleDiagram.SyntaxError.Kind, _ column: Int) -> MarbleDiagram.SyntaxError {
                MarbleDiagram.SyntaxError(kind, diagram: diagram, column: column)
            }
            while let token = try scanner.next() {
                switch token.symbol {
                case .zero:
                    if subscribe != nil { throw fail(.secondSubscribe, token.column) }
                    if unsubscribe != nil { throw fail(.unsubscribeBeforeSubscribe, unsubscribeColumn) }
                    subscribe = scanner.eventTime
                    scanner.eventDone()
                case .unsubscribe:
                    if unsubscribe != nil { throw fail(.secondUnsubscribe, token.column) }
                    unsubscribe = scanner.eventTime
                    unsubscribeColumn = token.column
                    scanner.noteEvent()
                case .complete, .error, nil:
                    throw fail(.unexpectedSymbolInSubscriptionDiagram(scanner.character(of: token)), token.column)
                default:
                    continue
                }
            }
            try scanner.finish()
            return (subscribe.map { .nanoseconds($0) }, unsubscribe.map { .nanoseconds($0) })
        }

        /// Measures a diagram: the time of its first `|` (RxJS `time()`), counting spaces as
        /// nothing and time progressions as their duration.
        public func time(_ diagram: String) throws(MarbleDiagram.SyntaxError) -> Duration {
            try Scanner.withBytes(of: diagram) { bytes throws(MarbleDiagram.SyntaxError) in try time(diagram, bytes: bytes) }
        }

        private func time(_ diagram: String, bytes: UnsafeBufferPointer<UInt8>) throws(MarbleDiagram.SyntaxError) -> Duration {
            var scanner = Scanner(bytes: bytes, frameNanos: frameNanos)
            while let token = try scanner.next() {
                switch token.symbol {
                case .complete:
                    // The cursor past an overflow is no time (the scanner reports an overflow lazily).
                    if let column = scanner.overflowColumn { throw scanner.fail(.timeOverflow, at: column) }
                    return .nanoseconds(scanner.eventTime)
                case .zero, .error, nil:
                    scanner.eventDone()
                default: continue
                }
            }
            throw MarbleDiagram.SyntaxError(.noCompletion, diagram: diagram, column: max(diagram.count, 1))
        }
    }
}
