// The one place that chooses the Combine implementation: Apple's where it exists, OpenCombine
// elsewhere, with the package's OpenCombine trait (the condition names the trait, not
// `canImport(OpenCombine)`: another package in the graph may build an OpenCombine module while the
// trait is off). Both spell the same API, so everything else in the module is written once;
// without either the module builds empty, and its entry point says what to turn on.
#if canImport(Combine)
    @_exported public import Combine

    /// Combine's `Scheduler` protocol (MarbleCore has a `Scheduler` of its own).
    public typealias CombineScheduler = Combine.Scheduler
    /// Combine's `ImmediateScheduler` (MarbleCore has an `ImmediateScheduler` of its own).
    public typealias CombineImmediateScheduler = Combine.ImmediateScheduler
#elseif OpenCombine
    @_exported @preconcurrency public import OpenCombine
    // `DispatchQueue`, `RunLoop` and `OperationQueue` as schedulers, with the time types code
    // under test is written against (`DispatchQueue.SchedulerTimeType`, …).
    @_exported @preconcurrency public import OpenCombineDispatch
    @_exported @preconcurrency public import OpenCombineFoundation

    /// Combine's `Scheduler` protocol (MarbleCore has a `Scheduler` of its own).
    public typealias CombineScheduler = OpenCombine.Scheduler
    /// Combine's `ImmediateScheduler` (MarbleCore has an `ImmediateScheduler` of its own).
    public typealias CombineImmediateScheduler = OpenCombine.ImmediateScheduler
#else
    public import Marbles

    extension TestScheduler {
        /// Unavailable: MarblesCombine needs Combine.
        @available(
            *, unavailable,
            message:
                "MarblesCombine needs Combine: off Apple platforms, enable the package's OpenCombine trait (.package(url: …, from: …, traits: [\"OpenCombine\"]), or swift build --traits OpenCombine)"
        )
        public var combine: Never { fatalError("MarblesCombine needs Combine") }
    }
#endif
