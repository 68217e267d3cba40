import MarbleCore
import MarblesTesting
import Testing

// The README's custom operator: declared on `ObservableType`, so it reaches every observable
// (test observables, subjects, `Observable`), not only `Observable` itself.
extension ObservableType where Element: Numeric {
    /// Each value twice over.
    func doubled() -> Observable<Element> { map { $0 * 2 } }
}

@Suite("Custom operators")
struct CustomOperatorTests {
    @Test("an operator declared on ObservableType works on test observables, subjects and Observable alike")
    func onEveryObservable() {
        let scheduler = TestScheduler()
        scheduler.run {
            let input = scheduler.hot("-1-2-|", values: ["1": 1, "2": 2])
            scheduler.expect(input.doubled()).toBe("-a-b-|", values: ["a": 2, "b": 4])
            scheduler.expect(scheduler.cold("-1|", values: ["1": 5]).doubled().doubled()).toBe("-x|", values: ["x": 20])
        }
        var seen: [Int] = []
        let subject = PublishSubject<Int>()
        _ = subject.doubled().subscribe(onNext: { seen.append($0) })
        subject.onNext(3)
        #expect(seen == [6])
    }
}
