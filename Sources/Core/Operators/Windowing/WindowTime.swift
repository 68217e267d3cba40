extension ObservableType {
    /// Splits the source into consecutive windows that close after `timeSpan` or at their
    /// `count`-th value, whichever comes first (RxJS `windowTime(timeSpan, null, maxWindowSize)`):
    /// the next window opens as one closes, with a fresh `timeSpan`. Windows are hot: subscribe to
    /// each as it arrives. Completion or an error of the source ends the window and the output.
    public func window(timeSpan: Duration, count: Int, scheduler: any Scheduler) -> Observable<Observable<Element>> {
        timedWindows(timeSpan: timeSpan, count: Swift.max(count, 1), every: nil, scheduler: scheduler)
    }

    /// Opens a window every `timeShift`, starting at subscription, each closing `timeSpan` after
    /// it opened (RxJS `windowTime(timeSpan, windowCreationInterval)`): windows overlap when
    /// `timeSpan > timeShift` (a value goes to every open window) and leave gaps when it is
    /// shorter (values in a gap are dropped). Windows are hot: subscribe to each as it arrives.
    public func window(timeSpan: Duration, timeShift: Duration, scheduler: any Scheduler) -> Observable<Observable<Element>> {
        timedWindows(timeSpan: timeSpan, count: .max, every: timeShift, scheduler: scheduler)
    }

    /// Windows that each close `timeSpan` after opening or at their `count`-th value; opened every
    /// `shift`, or (without one) as the previous window closes.
    private func timedWindows(timeSpan: Duration, count: Int, every shift: Duration?, scheduler: any Scheduler)
        -> Observable<Observable<Element>>
    {
        let source = asObservable()
        // The signal poster and resources, set by `sources` before the first signal.
        let context = WindowTimerContext<Element>()
        return windowing { windows in
            var seen: [Int: Int] = [:]
            func start() {
                let id = windows.openWindow()
                seen[id] = 0
                context.schedule(after: timeSpan, on: scheduler, .boundary(id))
            }
            func close(_ id: Int) {
                guard seen.removeValue(forKey: id) != nil else { return }
                windows.close(id)
                if shift == nil { start() }
            }
            return { signal in
                switch signal {
                case .open: start()
                case .value(let value):
                    windows.send(value)
                    for id in windows.open.map(\.id) {
                        let number = (seen[id] ?? 0) + 1
                        seen[id] = number
                        if number >= count { close(id) }
                    }
                case .boundary(let id): close(id)
                case .completed: windows.end(.completed)
                case .error: break
                }
            }
        } sources: { post, resources in
            context.post = post
            context.resources = resources
            post(.open(0))
            if let shift {
                resources.insert(Observable<Int>.interval(shift, scheduler: scheduler).subscribe(onNext: { _ in post(.open(0)) }))
            }
            resources.insert(source.postEvents(to: post))
        }
    }
}

/// Where a timed window operator's timers post their signals.
final class WindowTimerContext<Element>: @unchecked Sendable {
    var post: ((WindowSignal<Element>) -> Void)?
    var resources: CompositeDisposable?

    /// Posts `signal` after `delay`; the timer is released with the subscription.
    func schedule(after delay: Duration, on scheduler: any Scheduler, _ signal: WindowSignal<Element>) {
        guard let post, let resources else { return }
        let timer = SingleAssignmentDisposable()
        guard let key = resources.insert(timer) else { return }
        timer.set(
            scheduler.schedule(after: delay) {
                resources.remove(key)
                post(signal)
            })
    }
}
