import CombineSchedulers
import Dispatch
import Foundation

#if canImport(Combine)
    import Combine
#else
    import OpenCombineShim
#endif

/// A Combine view model in the pointfree style: it takes `AnySchedulerOf<DispatchQueue>`
/// (the app passes `DispatchQueue.main.eraseToAnyScheduler()`).
public final class CombineSearchViewModel: @unchecked Sendable {
    public let query = PassthroughSubject<String, Never>()
    public let results: AnyPublisher<[String], Never>

    public init(search: @escaping (String) -> AnyPublisher<[String], Never>, scheduler: AnySchedulerOf<DispatchQueue>) {
        results =
            query
            .debounce(for: .milliseconds(300), scheduler: scheduler)
            .removeDuplicates()
            .map(search)
            .switchToLatest()
            .receive(on: scheduler)
            .eraseToAnyPublisher()
    }
}
