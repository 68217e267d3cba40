extension ObservableType {
    /// Emits all values as one array when the source completes (an empty array for an empty
    /// source, as RxJS does).
    @inlinable
    public func toArray() -> Observable<[Element]> {
        reduce([Element]()) { array, value in
            var array = array
            array.append(value)
            return array
        }
    }
}
