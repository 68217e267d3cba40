import Dispatch
import MarbleCore
import Testing

@Suite("Schedulers")
struct SchedulerTests {
    @Test("ImmediateScheduler runs actions inside schedule")
    func immediate() {
        var log: [Int] = []
        ImmediateScheduler.instance.schedule { log.append(1) }
        log.append(2)
        ImmediateScheduler.instance.schedule(after: .milliseconds(1)) { log.append(3) }
        #expect(log == [1, 2, 3])
    }

    @Test("CurrentThreadScheduler trampolines nested actions instead of recursing, in due order")
    func trampoline() {
        let scheduler = CurrentThreadScheduler()
        var log: [String] = []
        scheduler.schedule {
            log.append("outer start")
            scheduler.schedule { log.append("nested") }
            scheduler.schedule(after: .milliseconds(1)) { log.append("delayed") }
            scheduler.schedule { log.append("nested 2") }
            log.append("outer end")
        }
        #expect(log == ["outer start", "outer end", "nested", "nested 2", "delayed"])
        #expect(scheduler.isScheduleRequired)
    }

    @Test("CurrentThreadScheduler skips disposed actions; deep recursion stays flat")
    func trampolineDispose() {
        let scheduler = CurrentThreadScheduler()
        var count = 0
        scheduler.schedule {
            scheduler.schedule { count += 100 }.dispose()
            func again() {
                count += 1
                if count < 100_000 { scheduler.schedule(again) }
            }
            again()
        }
        #expect(count == 100_000)
    }

    @Test("DispatchQueueScheduler runs actions on its queue, delayed ones after their delay, cancelled ones never")
    func dispatch() throws {
        let scheduler = DispatchQueueScheduler(label: "test")
        let done = DispatchSemaphore(value: 0)
        let log = LockedCounter()
        scheduler.schedule { log.increment() }
        scheduler.schedule(after: .milliseconds(5)) { log.increment() }.dispose()
        scheduler.schedule(after: .milliseconds(10)) { done.signal() }
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(log.value == 1)
        #expect(scheduler.now > .milliseconds(9))
    }

    @Test("interval on a dispatch scheduler ticks until disposed")
    func dispatchInterval() throws {
        let values = try Observable<Int>.interval(.milliseconds(2), scheduler: DispatchQueueScheduler(label: "interval"))
            .take(3).blocking(timeout: .seconds(5)).toArray()
        #expect(values == [0, 1, 2])
    }
}
