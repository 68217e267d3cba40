public import Foundation

/// The package's executable `name` as built beside the running test bundle (it sits in the same
/// build folder, a few levels up), or `nil` when it has not been built.
public func builtExecutable(_ name: String) -> URL? {
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = folder.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        folder.deleteLastPathComponent()
    }
    return nil
}
