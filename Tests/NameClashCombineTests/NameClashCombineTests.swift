#if canImport(Combine) || OpenCombine
    import CombineSchedulers
    import Foundation
    import MarblesCombine
    import MarblesTesting
    import Observation
    import Testing

    // Everything a Combine user imports beside ours, in one file: Observation (re-exported by
    // SwiftUI), Combine (OpenCombine here, through MarblesCombine) and combine-schedulers.
    // Spellings that compile here unqualified are the ones README documents.

    /// An @Observable model beside MarbleCore's `Observable` type.
    @available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, visionOS 1.0, *)
    @Observable final class CounterModel {
        var count = 0
    }

    /// Written against combine-schedulers' scheduler and ours side by side.
    @available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, visionOS 1.0, *)
    struct SchedulerUser {
        let marble: MarbleScheduler
        let point: AnySchedulerOf<DispatchQueue>
        let observable: Observable<Int>
    }

    @Suite("Names beside Observation, Combine and combine-schedulers")
    struct NameClashCombineTests {
        @available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, visionOS 1.0, *)
        @Test("MarbleScheduler, Observable<Int>, @Observable and AnySchedulerOf<DispatchQueue> in one file")
        func spellings() {
            let scheduler = MarbleScheduler()
            let user = SchedulerUser(marble: scheduler, point: scheduler.dispatchQueue.eraseToAnyScheduler(), observable: .just(1))
            let model = CounterModel()
            scheduler.run {
                let results = scheduler.expect(observing: { model.count })
                scheduler.schedule(after: .milliseconds(2)) { model.count = 5 }
                results.toBe("a-b", values: ["a": 0, "b": 5])
                scheduler.expect(user.observable).toBe("(a|)", values: ["a": 1])
            }
        }
    }
#endif
