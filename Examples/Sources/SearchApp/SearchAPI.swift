/// The search service the examples call.
public struct SearchAPI: Sendable {
    public var search: @Sendable (String) async -> [String]

    public init(search: @escaping @Sendable (String) async -> [String]) { self.search = search }
}
