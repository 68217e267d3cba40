/// The open windows of a `window` operator and the output they are announced on. Touched only
/// from its operator's serialized handler (see `windowing(_:sources:)`), so it needs no lock
/// of its own, and nothing is called out under a lock.
final class WindowSet<Element> {
    private let downstream: Observer<Observable<Element>>
    private(set) var open: [(id: Int, subject: PublishSubject<Element>)] = []
    private var nextID = 0
    private(set) var ended = false

    init(_ downstream: Observer<Observable<Element>>) { self.downstream = downstream }

    /// Opens a window, announces it downstream, and returns its id.
    @discardableResult
    func openWindow() -> Int {
        let subject = PublishSubject<Element>()
        nextID += 1
        open.append((nextID, subject))
        downstream.onNext(subject.asObservable())
        return nextID
    }

    /// Completes the window `id`, if it is still open.
    func close(_ id: Int) {
        guard let index = open.firstIndex(where: { $0.id == id }) else { return }
        open.remove(at: index).subject.onCompleted()
    }

    /// Completes the oldest open window.
    func closeOldest() {
        guard !open.isEmpty else { return }
        open.removeFirst().subject.onCompleted()
    }

    func send(_ value: Element) {
        for window in open { window.subject.onNext(value) }
    }

    /// Ends every window and the output with `event` (an error or completion).
    func end(_ event: Event<Observable<Element>>) {
        ended = true
        let windows = open
        open = []
        for window in windows {
            if case .error(let error) = event { window.subject.onError(error) } else { window.subject.onCompleted() }
        }
        downstream.on(event)
    }
}

/// What a window operator's sources report, serialized through one gate.
enum WindowSignal<Element> {
    case value(Element)
    case error(any Error)
    case completed
    /// A boundary or closing notifier fired; the payload says which window, if any.
    case boundary(Int)
    /// An opening notifier fired: open window number `n` (counting from 1).
    case open(Int)
}

extension ObservableType {
    /// Runs a window operator. Per subscription, `handler` makes the signal handler (opening
    /// the first windows if the operator does) and `sources` subscribes the sources, posting
    /// their signals. Signals reach the handler one at a time, never concurrently and never
    /// re-entrantly; an error ends every window and the output, and nothing passes after an end.
    func windowing(
        _ handler: @escaping (WindowSet<Element>) -> (WindowSignal<Element>) -> Void,
        sources: @escaping (_ post: @escaping (WindowSignal<Element>) -> Void, _ resources: CompositeDisposable) -> Void
    ) -> Observable<Observable<Element>> {
        Observable.composite { downstream, resources in
            let windows = WindowSet(downstream)
            let handle = handler(windows)
            let serial = Gate(
                Observer<WindowSignal<Element>> { event in
                    guard case .next(let signal) = event, !windows.ended else { return }
                    if case .error(let error) = signal { return windows.end(.error(error)) }
                    handle(signal)
                })
            sources({ serial.send(.next($0)) }, resources)
        }
    }

    /// Subscribes the source, posting its events as window signals.
    func postEvents(to post: @escaping (WindowSignal<Element>) -> Void) -> any Disposable {
        subscribe { event in
            switch event {
            case .next(let value): post(.value(value))
            case .error(let error): post(.error(error))
            case .completed: post(.completed)
            }
        }
    }
}
