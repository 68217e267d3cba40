import Foundation

/// The operator gallery's specs, in name order: `Resources/gallery/*.marble`, copies of
/// `diagrams/` that `make diagrams` keeps current (`make check-diagrams` checks them).
enum GallerySpecs {
    static let all: [(name: String, spec: String)] = {
        guard let directory = Bundle.module.url(forResource: "gallery", withExtension: nil),
            let files = try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        else { preconditionFailure("the gallery is missing from the MarblePlayground bundle") }
        return files.filter { $0.pathExtension == "marble" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
            .compactMap { url in
                (try? String(contentsOf: url, encoding: .utf8)).map { (url.deletingPathExtension().lastPathComponent, $0) }
            }
    }()
}
