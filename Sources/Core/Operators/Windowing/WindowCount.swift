extension ObservableType {
    /// Splits the source into windows of `count` values, a new one opening every `skip` values
    /// (RxJS `windowCount(count, skip)`; `skip` defaults to `count`). The first window opens at
    /// subscription; a window closes at its `count`-th value, and the next one opens right
    /// after it. With `skip` below `count` windows overlap; above, values between them are dropped.
    ///
    /// Windows are hot: subscribe to each as it arrives. The source's completion completes the
    /// open windows and then the output; its error goes to every open window and the output.
    public func window(count: Int, skip: Int? = nil) -> Observable<Observable<Element>> {
        let size = Swift.max(count, 1)
        let every = Swift.max(skip ?? size, 1)
        let source = asObservable()
        return windowing { windows in
            windows.openWindow()
            var seen = 0
            return { signal in
                switch signal {
                case .value(let value):
                    windows.send(value)
                    let closing = seen - size + 1
                    if closing >= 0, closing % every == 0 { windows.closeOldest() }
                    seen += 1
                    if seen % every == 0 { windows.openWindow() }
                case .completed: windows.end(.completed)
                case .error, .boundary, .open: break
                }
            }
        } sources: { post, resources in
            resources.insert(source.postEvents(to: post))
        }
    }
}
