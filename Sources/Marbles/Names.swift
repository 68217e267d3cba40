/// ``TestScheduler`` under a name no other library uses: write it in files that also import
/// pointfree's combine-schedulers (whose `TestScheduler` is a Combine scheduler), or swift-dependencies.
public typealias MarbleScheduler = TestScheduler

/// ``TestClock`` under a name no other library uses: write it in files that also import
/// pointfree's swift-clocks (whose `TestClock` is a clock of its own), or swift-dependencies.
public typealias MarbleClock = TestClock
