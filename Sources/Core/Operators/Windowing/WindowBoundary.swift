extension ObservableType {
    /// Splits the source into consecutive windows, each one closed and the next opened when
    /// `boundary` emits (RxJS `window(notifier)`). The first window opens at subscription; the
    /// boundary's completion changes nothing; an error from either side ends every window and
    /// the output. Windows are hot: subscribe to each as it arrives.
    public func window<Boundary: ObservableType>(_ boundary: Boundary) -> Observable<Observable<Element>> {
        let source = asObservable()
        return windowing(consecutiveWindows) { post, resources in
            resources.insert(
                boundary.subscribe { event in
                    switch event {
                    case .next: post(.boundary(0))
                    case .error(let error): post(.error(error))
                    case .completed: break
                    }
                })
            resources.insert(source.postEvents(to: post))
        }
    }

    /// Splits the source into consecutive windows of `timeSpan` each (RxJS `windowTime`): the
    /// first opens at subscription, and every `timeSpan` the current one closes and the next
    /// opens. A value due at the same instant as a boundary goes to the window whose timer was
    /// scheduled first. Windows are hot: subscribe to each as it arrives.
    public func window(timeSpan: Duration, scheduler: any Scheduler) -> Observable<Observable<Element>> {
        window(Observable<Int>.interval(timeSpan, scheduler: scheduler))
    }

    /// Windows that open and close by notification (RxJS `windowToggle`): each value of
    /// `openings` opens a window, and that window closes when the observable `closing` returns
    /// for the opening value first emits or completes. Values go to every open window; between
    /// windows they are dropped. Completion of the source completes the open windows and the
    /// output; an error from any side ends them all.
    public func window<Opening: ObservableType, Closing: ObservableType>(
        toggle openings: Opening, closing: @escaping (Opening.Element) throws -> Closing
    ) -> Observable<Observable<Element>> {
        let source = asObservable()
        return windowing { windows in
            { signal in
                switch signal {
                case .value(let value): windows.send(value)
                case .open: windows.openWindow()
                case .boundary(let id): windows.close(id)
                case .completed: windows.end(.completed)
                case .error: break
                }
            }
        } sources: { post, resources in
            var opened = 0
            resources.insert(
                openings.subscribe { event in
                    switch event {
                    case .next(let opening):
                        opened += 1
                        let id = opened
                        post(.open(id))
                        let closer: Observable<Closing.Element>
                        do { closer = try closing(opening).asObservable() } catch { return post(.error(error)) }
                        let holder = SingleAssignmentDisposable()
                        guard let key = resources.insert(holder) else { return }
                        holder.set(
                            closer.subscribe { closeEvent in
                                if case .error(let error) = closeEvent { return post(.error(error)) }
                                resources.remove(key)
                                post(.boundary(id))
                            })
                    case .error(let error): post(.error(error))
                    case .completed: break
                    }
                })
            resources.insert(source.postEvents(to: post))
        }
    }
}

extension ObservableType {
    /// Splits the source into consecutive windows (RxJS `windowWhen`): the first opens at
    /// subscription together with a subscription to `closing()`; when that emits or completes,
    /// the window closes, the next opens, and `closing` is called again. Windows are hot:
    /// subscribe to each as it arrives. An error from either side ends every window and the output.
    public func window<Closing: ObservableType>(closing: @escaping () throws -> Closing) -> Observable<Observable<Element>> {
        let source = asObservable()
        return windowing(consecutiveWindows) { post, resources in
            let slot = SerialDisposable()
            resources.insert(slot)
            // A closing observable that ends at once would otherwise recurse.
            var again: () -> Void = {}
            func subscribeClosing() {
                guard RunawayGuard.spend("window(closing:)") else { return }
                let closer: Observable<Closing.Element>
                do { closer = try closing().asObservable() } catch { return post(.error(error)) }
                let holder = SingleAssignmentDisposable()
                slot.set(holder)
                var fired = false
                holder.set(
                    closer.subscribe { event in
                        if case .error(let error) = event { return post(.error(error)) }
                        guard !fired else { return }
                        fired = true
                        post(.boundary(0))
                        again()
                    })
            }
            let trampoline = Trampoline<Void> { _ in subscribeClosing() }
            again = { trampoline.run(()) }
            resources.insert(source.postEvents(to: post))
            again()
        }
    }

    /// The handler of windows that follow each other: a boundary closes one and opens the next.
    func consecutiveWindows(_ windows: WindowSet<Element>) -> (WindowSignal<Element>) -> Void {
        windows.openWindow()
        return { signal in
            switch signal {
            case .value(let value): windows.send(value)
            case .boundary:
                windows.closeOldest()
                windows.openWindow()
            case .completed: windows.end(.completed)
            case .error, .open: break
            }
        }
    }
}
