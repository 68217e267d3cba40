#if canImport(Combine) || OpenCombine
    public import Marbles

    /// A `TestScheduler` seen as a Combine `Scheduler`: `publisher.debounce(for: .milliseconds(3),
    /// scheduler: scheduler.combine)` runs on the marble clock, on the same heap as observables
    /// (O(log n) per action, FIFO among actions due at one instant).
    ///
    /// Times are virtual: ``VirtualInstant`` counts from the scheduler's start, and a ``Stride``
    /// converts from `Duration` and from Combine's `.seconds`/`.milliseconds`/… spellings.
    public struct CombineTestScheduler: CombineScheduler, @unchecked Sendable {
        /// The marble scheduler underneath.
        public let base: TestScheduler

        /// Views `base` as a Combine scheduler.
        public init(_ base: TestScheduler) { self.base = base }

        /// A point on the virtual clock.
        public struct VirtualInstant: Strideable, Hashable, Sendable, CustomStringConvertible {
            /// Time since the scheduler started.
            public var sinceStart: Duration

            /// The instant `sinceStart` after the scheduler's start.
            public init(_ sinceStart: Duration) { self.sinceStart = sinceStart }

            public func distance(to other: VirtualInstant) -> Stride { Stride(other.sinceStart - sinceStart) }
            public func advanced(by n: Stride) -> VirtualInstant { VirtualInstant(sinceStart + n.duration) }
            public var description: String { "\(sinceStart)" }
        }

        /// A span of virtual time.
        public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, Hashable, Sendable {
            /// The span.
            public var duration: Duration

            /// A span of `duration`.
            public init(_ duration: Duration) { self.duration = duration }
            /// A span of `value` seconds (Combine's convention for integer literals).
            public init(integerLiteral value: Int) { duration = .seconds(value) }
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let seconds = Int64(exactly: source) else { return nil }
                duration = .seconds(seconds)
            }

            public static func seconds(_ s: Int) -> Stride { Stride(.seconds(s)) }
            public static func seconds(_ s: Double) -> Stride { Stride(.seconds(s)) }
            public static func milliseconds(_ ms: Int) -> Stride { Stride(.milliseconds(ms)) }
            public static func microseconds(_ us: Int) -> Stride { Stride(.microseconds(us)) }
            public static func nanoseconds(_ ns: Int) -> Stride { Stride(.nanoseconds(ns)) }

            public var magnitude: Stride { Stride(duration < .zero ? .zero - duration : duration) }
            public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.duration < rhs.duration }
            public static func + (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.duration + rhs.duration) }
            public static func - (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.duration - rhs.duration) }
            public static func += (lhs: inout Stride, rhs: Stride) { lhs.duration += rhs.duration }
            public static func -= (lhs: inout Stride, rhs: Stride) { lhs.duration -= rhs.duration }
            /// Scales by the other span's length in seconds (Combine strides multiply as numbers).
            public static func * (lhs: Stride, rhs: Stride) -> Stride {
                let (seconds, attoseconds) = rhs.duration.components
                return Stride(lhs.duration * (Double(seconds) + Double(attoseconds) / 1e18))
            }
            public static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }
        }

        public typealias SchedulerTimeType = VirtualInstant
        public typealias SchedulerOptions = Never

        public var now: VirtualInstant { VirtualInstant(base.now) }
        public var minimumTolerance: Stride { Stride(.zero) }

        public func schedule(options: Never?, _ action: @escaping () -> Void) {
            base.schedule(action)
        }

        public func schedule(after date: VirtualInstant, tolerance: Stride, options: Never?, _ action: @escaping () -> Void) {
            base.schedule(after: Swift.max(date.sinceStart - base.now, .zero), action)
        }

        public func schedule(
            after date: VirtualInstant, interval: Stride, tolerance: Stride, options: Never?, _ action: @escaping () -> Void
        ) -> any Cancellable {
            let periodic = base.schedulePeriodic(
                every: interval.duration, startingAfter: Swift.max(date.sinceStart - base.now, .zero), action)
            return AnyCancellable { periodic.dispose() }
        }
    }

    extension TestScheduler {
        /// This scheduler as a Combine `Scheduler`, on the same virtual clock.
        public var combine: CombineTestScheduler { CombineTestScheduler(self) }
    }
#endif
