import Observation

// Three bugs a first-in-first-out test run hides, each beside its fix. Each needs two pieces of
// work ready at the same instant, so that the app's order between them is up to the runtime.

/// A `@MainActor` suggestions model that starts a search per keystroke and shows whichever
/// response arrives last. With equal latencies, two responses arrive at the same instant; when
/// the older lands last, it overwrites the newer one (a stale response).
@MainActor @Observable public final class NaiveSuggestions {
    public private(set) var shown: [String] = []
    @ObservationIgnored private let api: SearchAPI

    public init(api: SearchAPI) { self.api = api }

    public func typed(_ query: String) {
        Task { shown = await api.search(query) }
    }
}

/// The fix: each keystroke cancels the previous search, and a cancelled search shows nothing.
@MainActor @Observable public final class LatestSuggestions {
    public private(set) var shown: [String] = []
    @ObservationIgnored private let api: SearchAPI
    @ObservationIgnored private var task: Task<Void, Never>?

    public init(api: SearchAPI) { self.api = api }

    public func typed(_ query: String) {
        task?.cancel()
        task = Task {
            let results = await api.search(query)
            guard !Task.isCancelled else { return }
            shown = results
        }
    }
}

/// A profile screen that shows the cached profile and fetches a fresh one at the same time; a
/// slow disk makes the cached read land as late as the network, and when it lands last it
/// overwrites the fresh profile.
public final class NaiveProfile: @unchecked Sendable {
    public private(set) var shown = ""
    private let cached: @Sendable () async -> String
    private let fresh: @Sendable () async -> String

    public init(cached: @escaping @Sendable () async -> String, fresh: @escaping @Sendable () async -> String) {
        (self.cached, self.fresh) = (cached, fresh)
    }

    /// Loads both; returns when both landed.
    public func load() async {
        let fromCache = Task { shown = await cached() }
        let fromNetwork = Task { shown = await fresh() }
        await fromCache.value
        await fromNetwork.value
    }
}

/// The fix: the cached profile is shown only if the fresh one has not landed yet.
public final class FreshFirstProfile: @unchecked Sendable {
    public private(set) var shown = ""
    private var hasFresh = false
    private let cached: @Sendable () async -> String
    private let fresh: @Sendable () async -> String

    public init(cached: @escaping @Sendable () async -> String, fresh: @escaping @Sendable () async -> String) {
        (self.cached, self.fresh) = (cached, fresh)
    }

    public func load() async {
        let fromCache = Task {
            let profile = await cached()
            if !hasFresh { shown = profile }
        }
        let fromNetwork = Task {
            shown = await fresh()
            hasFresh = true
        }
        await fromCache.value
        await fromNetwork.value
    }
}

/// An image cache whose lookup checks, awaits the download, then stores: actor reentrancy lets
/// a second caller check between the first caller's check and its store, and both download.
public actor NaiveImageCache {
    private var images: [String: String] = [:]
    public private(set) var downloads = 0
    private let download: @Sendable (String) async -> String

    public init(download: @escaping @Sendable (String) async -> String) { self.download = download }

    public func image(_ url: String) async -> String {
        if let image = images[url] { return image }
        downloads += 1
        let image = await download(url)
        images[url] = image
        return image
    }
}

/// The fix: the cache keeps the download in flight, and a second caller awaits the same one.
public actor DedupingImageCache {
    private var images: [String: Task<String, Never>] = [:]
    public private(set) var downloads = 0
    private let download: @Sendable (String) async -> String

    public init(download: @escaping @Sendable (String) async -> String) { self.download = download }

    public func image(_ url: String) async -> String {
        if let pending = images[url] { return await pending.value }
        downloads += 1
        let download = download
        let pending = Task { await download(url) }
        images[url] = pending
        return await pending.value
    }
}
