#if canImport(Combine) || OpenCombine
    public import Dispatch
    public import Foundation
    import MarbleCore
    public import Marbles

    /// A `TestScheduler` seen as a Combine `Scheduler` with a platform scheduler's time types, so
    /// that code written against `DispatchQueue`, `RunLoop` or `OperationQueue` takes it unchanged:
    /// a view model holding an `AnySchedulerOf<DispatchQueue>` (combine-schedulers), a function
    /// generic over `some Scheduler<DispatchQueue.SchedulerTimeType>`, or one taking
    /// `S: Scheduler where S.SchedulerTimeType == RunLoop.SchedulerTimeType`.
    ///
    /// ```swift
    /// let model = SearchViewModel(scheduler: scheduler.dispatchQueue.eraseToAnyScheduler())
    /// ```
    ///
    /// Time is the marble clock's: `now` is a fixed origin (not the wall clock) plus the virtual
    /// time, and actions run on the same heap as observables, FIFO among actions due at one instant.
    /// Options are accepted and ignored (there is no queue to choose, and no quality of service).
    public struct PlatformTimeTestScheduler<SchedulerTimeType: Strideable, SchedulerOptions>: CombineScheduler, @unchecked Sendable
    where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
        /// The marble scheduler underneath.
        public let base: TestScheduler
        /// The time at the scheduler's frame 0.
        public let origin: SchedulerTimeType
        private let duration: (SchedulerTimeType.Stride) -> Duration

        /// Views `base` as a scheduler whose frame 0 is `origin`; `duration` reads a stride.
        public init(_ base: TestScheduler, origin: SchedulerTimeType, duration: @escaping (SchedulerTimeType.Stride) -> Duration) {
            self.base = base
            self.origin = origin
            self.duration = duration
        }

        public var now: SchedulerTimeType { origin.advanced(by: .nanoseconds(Int(clamping: base.now.clampedNanoseconds))) }
        public var minimumTolerance: SchedulerTimeType.Stride { .nanoseconds(0) }

        public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
            base.schedule(action)
        }

        public func schedule(
            after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?, _ action: @escaping () -> Void
        ) {
            base.schedule(after: delay(until: date), action)
        }

        public func schedule(
            after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
            options: SchedulerOptions?, _ action: @escaping () -> Void
        ) -> any Cancellable {
            let periodic = base.schedulePeriodic(every: duration(interval), startingAfter: delay(until: date), action)
            return AnyCancellable { periodic.dispose() }
        }

        private func delay(until date: SchedulerTimeType) -> Duration { Swift.max(duration(now.distance(to: date)), .zero) }
    }

    /// The test scheduler with `DispatchQueue`'s time types.
    public typealias DispatchQueueTestScheduler = PlatformTimeTestScheduler<DispatchQueue.SchedulerTimeType, DispatchQueue.SchedulerOptions>
    /// The test scheduler with `RunLoop`'s time types.
    public typealias RunLoopTestScheduler = PlatformTimeTestScheduler<RunLoop.SchedulerTimeType, RunLoop.SchedulerOptions>
    /// The test scheduler with `OperationQueue`'s time types.
    public typealias OperationQueueTestScheduler = PlatformTimeTestScheduler<
        OperationQueue.SchedulerTimeType, OperationQueue.SchedulerOptions
    >

    extension TestScheduler {
        /// This scheduler where a `DispatchQueue` is expected (`AnySchedulerOf<DispatchQueue>`,
        /// `some Scheduler<DispatchQueue.SchedulerTimeType>`), on the same virtual clock. Strides are
        /// nanoseconds, as `DispatchQueue`'s are.
        public var dispatchQueue: DispatchQueueTestScheduler {
            // Uptime 0 means "now" to Dispatch; any fixed instant after it does.
            PlatformTimeTestScheduler(self, origin: .init(DispatchTime(uptimeNanoseconds: 1_000_000_000))) {
                .nanoseconds($0.magnitude)
            }
        }

        /// This scheduler where a `RunLoop` is expected, on the same virtual clock (frame 0 is the
        /// reference date, 2001-01-01).
        public var runLoop: RunLoopTestScheduler {
            PlatformTimeTestScheduler(self, origin: .init(Date(timeIntervalSinceReferenceDate: 0))) { .seconds($0.magnitude) }
        }

        /// This scheduler where an `OperationQueue` is expected, on the same virtual clock (frame 0
        /// is the reference date, 2001-01-01).
        public var operationQueue: OperationQueueTestScheduler {
            PlatformTimeTestScheduler(self, origin: .init(Date(timeIntervalSinceReferenceDate: 0))) { .seconds($0.magnitude) }
        }
    }
#endif
