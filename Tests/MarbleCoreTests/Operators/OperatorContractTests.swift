import MarbleCore
import MarblesTesting
import Testing

/// The contract every single-source operator keeps, swept over the operator set: an
/// unsubscription reaches the source at once, and a source error passes straight through.
/// (`autoconnect()` is the one exception by design: it stays connected; its own test says so.)
@Suite("Operator contract")
struct OperatorContractTests {
    struct Op: Sendable, CustomTestStringConvertible {
        var name: String
        /// Whether a source error reaches the output at its own frame (not: retry, catch, materialize).
        var forwardsErrorAtOnce = true
        var apply: @Sendable (Observable<String>, TestScheduler) -> Observable<String>
        var testDescription: String { name }
    }

    static let operators: [Op] = [
        Op(name: "map") { o, _ in o.map { $0 } },
        Op(name: "compactMap") { o, _ in o.compactMap { $0 } },
        Op(name: "filter") { o, _ in o.filter { _ in true } },
        Op(name: "scan") { o, _ in o.scan("") { $0 + $1 } },
        Op(name: "reduce") { o, _ in o.reduce("") { $0 + $1 } },
        Op(name: "toArray") { o, _ in o.toArray().map { $0.joined() } },
        Op(name: "startWith") { o, _ in o.startWith("s") },
        Op(name: "ifEmpty") { o, _ in o.ifEmpty(default: "d") },
        Op(name: "distinctUntilChanged") { o, _ in o.distinctUntilChanged() },
        Op(name: "take") { o, _ in o.take(10) },
        Op(name: "takeLast") { o, _ in o.takeLast(2) },
        Op(name: "take(while:)") { o, _ in o.take(while: { _ in true }) },
        Op(name: "take(until:)") { o, s in o.take(until: s.hot("-------------x")) },
        Op(name: "skip") { o, _ in o.skip(1) },
        Op(name: "skip(while:)") { o, _ in o.skip(while: { _ in false }) },
        Op(name: "skip(until:)") { o, s in o.skip(until: s.hot("x")) },
        Op(name: "first") { o, _ in o.first(where: { $0 == "zz" }) },
        Op(name: "last") { o, _ in o.last() },
        Op(name: "elementAt") { o, _ in o.elementAt(5) },
        Op(name: "ignoreElements") { o, _ in o.ignoreElements() },
        Op(name: "skipLast") { o, _ in o.skipLast(2) },
        Op(name: "endWith") { o, _ in o.endWith("z") },
        Op(name: "count") { o, _ in o.count().map { "\($0)" } },
        Op(name: "isEmpty") { o, _ in o.filter { _ in false }.isEmpty().map { "\($0)" } },
        Op(name: "every") { o, _ in o.every { _ in true }.map { "\($0)" } },
        Op(name: "throwIfEmpty") { o, _ in o.throwIfEmpty() },
        Op(name: "element(at:)") { o, _ in o.element(at: 5) },
        Op(name: "min") { o, _ in o.min() },
        Op(name: "distinct") { o, _ in o.distinct() },
        Op(name: "repeat") { o, _ in o.repeat(2) },
        Op(name: "single") { o, _ in o.filter { _ in false }.single() },
        Op(name: "finalize") { o, _ in o.finalize {} },
        Op(name: "take(for:)") { o, s in o.take(for: .milliseconds(50), scheduler: s) },
        Op(name: "sample(every:)") { o, s in o.sample(every: .milliseconds(1), scheduler: s) },
        Op(name: "audit") { o, s in o.audit(.milliseconds(1), scheduler: s) },
        Op(name: "debug") { o, _ in o.debug("contract") { _ in } },
        Op(name: "buffer(boundary)") { o, s in o.buffer(s.hot("-----x")).map { $0.joined() } },
        Op(name: "sequenceEqual") { o, s in o.sequenceEqual(s.hot("a")).map { "\($0)" } },
        Op(name: "reduce(mapResult:)") { o, _ in o.reduce("", accumulator: { $0 + $1 }, mapResult: { $0 }) },
        Op(name: "exhaustAll") { o, s in o.map { _ in s.cold("x|") }.exhaustAll() },
        Op(name: "combineLatestAll") { o, s in o.map { _ in s.cold("x|") }.combineLatestAll().map { $0.joined() } },
        Op(name: "zipAll") { o, s in o.map { _ in s.cold("x|") }.zipAll().map { $0.joined() } },
        Op(name: "buffer(count:skip:)") { o, _ in o.buffer(count: 3, skip: 1).map { $0.joined() } },
        Op(name: "forkJoin") { o, s in Observable.forkJoin([o.asObservable(), s.hot("x").asObservable()]).map { $0.joined() } },
        Op(name: "skip(for:)") { o, s in o.skip(for: .milliseconds(1), scheduler: s) },
        Op(name: "max") { o, _ in o.max() },
        Op(name: "scan(into:)") { o, _ in o.scan(into: "") { $0 += $1 } },
        Op(name: "enumerated") { o, _ in o.enumerated().map(\.element) },
        Op(name: "timestamp") { o, s in o.timestamp(scheduler: s).map(\.value) },
        Op(name: "timeInterval") { o, s in o.timeInterval(scheduler: s).map(\.value) },
        Op(name: "pairwise") { o, _ in o.pairwise().map { $0 + $1 } },
        Op(name: "buffer(count:)") { o, _ in o.buffer(count: 5).map { $0.joined() } },
        Op(name: "buffer(timeSpan:)") { o, s in o.buffer(timeSpan: .milliseconds(50), scheduler: s).map { $0.joined() } },
        Op(name: "materialize", forwardsErrorAtOnce: false) { o, _ in o.materialize().map { "\($0)" } },
        Op(name: "dematerialize") { o, _ in o.materialize().dematerialize() },
        Op(name: "merge") { o, s in o.merge(with: s.hot("------------x")) },
        Op(name: "concat") { o, s in o.concat(s.cold("x|")) },
        Op(name: "flatMap") { o, s in o.flatMap { _ in s.cold("-x|") } },
        Op(name: "flatMap(maxConcurrent:)") { o, s in o.flatMap(maxConcurrent: 1) { _ in s.cold("x|") } },
        Op(name: "concatMap") { o, s in o.concatMap { _ in s.cold("x|") } },
        Op(name: "flatMapLatest") { o, s in o.flatMapLatest { _ in s.cold("x|") } },
        Op(name: "flatMapFirst") { o, s in o.flatMapFirst { _ in s.cold("x|") } },
        Op(name: "combineLatest") { o, s in o.combineLatest(s.hot("y")) { $0 + $1 } },
        Op(name: "zip") { o, s in o.zip(s.hot("yyyyyyy")) { $0 + $1 } },
        Op(name: "withLatestFrom") { o, s in o.withLatestFrom(s.hot("y")) { $0 + $1 } },
        Op(name: "amb") { o, s in o.amb(s.hot("-------------x")) },
        Op(name: "delay") { o, s in o.delay(.milliseconds(1), scheduler: s) },
        Op(name: "delaySubscription") { o, s in o.delaySubscription(.zero, scheduler: s) },
        Op(name: "debounce") { o, s in o.debounce(.milliseconds(1), scheduler: s) },
        Op(name: "throttle") { o, s in o.throttle(.milliseconds(1), scheduler: s) },
        Op(name: "sample") { o, s in o.sample(s.hot("-x-x-x-x-x")) },
        Op(name: "timeout") { o, s in o.timeout(.milliseconds(50), scheduler: s) },
        Op(name: "catch", forwardsErrorAtOnce: false) { o, s in o.catch { _ in s.cold("-z|") } },
        Op(name: "retry", forwardsErrorAtOnce: false) { o, _ in o.retry(1) },
        Op(name: "do") { o, _ in o.do(onNext: { _ in }) },
        Op(name: "observe(on:)") { o, s in o.observe(on: s) },
        Op(name: "subscribe(on:)") { o, s in o.subscribe(on: s) },
        Op(name: "share") { o, _ in o.share() },
        Op(name: "share(replay:)") { o, _ in o.share(replay: 2) },
        Op(name: "mergeScan") { o, s in o.mergeScan("") { acc, x in s.cold("-v|", values: ["v": acc + x]) } },
        Op(name: "switchScan") { o, s in o.switchScan("") { acc, x in s.cold("-v|", values: ["v": acc + x]) } },
        Op(name: "expand") { o, _ in o.expand { _ in Observable<String>.empty() } },
        Op(name: "delayWhen") { o, s in o.delayWhen { _ in s.cold("-x") } },
        Op(name: "delay(until:)") { o, s in o.delay(until: .milliseconds(2), scheduler: s) },
        Op(name: "throttle(leading:trailing:)") { o, s in o.throttle(.milliseconds(1), leading: false, trailing: true, scheduler: s) },
        Op(name: "withUnretained") { o, _ in o.withUnretained(ContractObject.shared) { $1 } },
        Op(name: "then") { o, s in o.then { s.cold("x|") } },
        Op(name: "take(untilReplacedBy:)") { o, s in o.take(untilReplacedBy: s.hot("--------------x")) },
        Op(name: "contains") { o, _ in o.contains("zz").map { "\($0)" } },
        Op(name: "combinePrevious") { o, _ in o.combinePrevious("s") { $0 + $1 } },
        Op(name: "window(count:)") { o, _ in o.window(count: 2).flatMap { $0 } },
        Op(name: "window(timeSpan:)") { o, s in o.window(timeSpan: .milliseconds(2), scheduler: s).flatMap { $0 } },
        Op(name: "window(boundary)") { o, s in o.window(s.hot("--x--x")).flatMap { $0 } },
        Op(name: "window(toggle:)") { o, s in o.window(toggle: s.hot("x-x-x")) { _ in s.cold("--x") }.flatMap { $0 } },
        Op(name: "window(closing:)") { o, s in o.window(closing: { s.cold("--x") }).flatMap { $0 } },
        Op(name: "groupBy") { o, _ in o.groupBy { $0 }.flatMap { $0 } },
        Op(name: "partition") { o, _ in o.partition { _ in true }.matching },
        Op(name: "asSingle") { o, _ in o.filter { $0 == "a" }.asSingle().asObservable() },
        Op(name: "asMaybe") { o, _ in o.filter { $0 == "a" }.asMaybe().asObservable() },
        Op(name: "asCompletable") { o, _ in o.asCompletable().asObservable().map { _ -> String in } },
        Op(name: "repeat(delay:)") { o, s in o.repeat(2, delay: .milliseconds(1), scheduler: s) },
        Op(name: "using") { o, _ in Observable.using({ SerialDisposable() }, observableFactory: { _ in o.asObservable() }) },
        Op(name: "audit(durationSelector)") { o, s in o.audit { _ in s.cold("--x") } },
        Op(name: "throttle(durationSelector)") { o, s in o.throttle(trailing: true) { _ in s.cold("--x") } },
        Op(name: "window(timeSpan:count:)") { o, s in o.window(timeSpan: .milliseconds(3), count: 2, scheduler: s).flatMap { $0 } },
        Op(name: "window(timeSpan:timeShift:)") { o, s in
            o.window(timeSpan: .milliseconds(3), timeShift: .milliseconds(2), scheduler: s).flatMap { $0 }
        },
        Op(name: "min(by:)") { o, _ in o.min(by: <) },
        Op(name: "max(by:)") { o, _ in o.max(by: <) },
        Op(name: "single(where:)") { o, _ in o.single { $0 == "zz" } },
        Op(name: "first(where:default:)") { o, _ in o.first(where: { $0 == "zz" }, default: "d") },
        Op(name: "find(where:)") { o, _ in o.find { $0 == "zz" }.map { $0 ?? "nil" } },
        Op(name: "firstIndex(where:)") { o, _ in o.firstIndex { $0 == "zz" }.map { "\($0)" } },
        Op(name: "share(resets)") { o, _ in o.share(resetOnError: false, resetOnComplete: false, resetOnRefCountZero: true) },
    ]

    @Test("unsubscribing the output unsubscribes the source at that frame", arguments: operators)
    func unsubscription(_ op: Op) {
        marbles { s in
            let source = s.cold("-a-b-c-d-e-|")
            _ = s.expect(op.apply(source.asObservable(), s), unsubscribe: "^----!")
            s.expect(subscriptions: source.subscriptions).toBe("^----!")
        }
    }

    @Test("a source error passes straight through", arguments: operators.filter(\.forwardsErrorAtOnce))
    func errors(_ op: Op) {
        marbles { s in
            let source = s.cold("---#")
            let recording = s.record(op.apply(source.asObservable(), s))
            s.flush()
            let last = recording.events.last
            #expect(last?.time == .milliseconds(3), "\(recording.events)")
            #expect(last?.value.error is MarbleError, "\(recording.events)")
        }
    }
}

/// An object that outlives the contract sweep, for `withUnretained`.
final class ContractObject: Sendable {
    static let shared = ContractObject()
}
