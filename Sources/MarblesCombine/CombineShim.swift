// The one place that chooses the Combine implementation: Apple's where it exists, OpenCombine
// elsewhere. Both spell the same API, so everything else in the module is written once.
#if canImport(Combine)
    @_exported public import Combine

    /// Combine's `Scheduler` protocol (MarbleCore has a `Scheduler` of its own).
    public typealias CombineScheduler = Combine.Scheduler
#else
    @_exported @preconcurrency public import OpenCombine

    /// Combine's `Scheduler` protocol (MarbleCore has a `Scheduler` of its own).
    public typealias CombineScheduler = OpenCombine.Scheduler
#endif
