public import Foundation

/// A fresh temporary folder per test (tests run in parallel).
public func temporaryFolder() -> String {
    let path = NSTemporaryDirectory() + "marbles-tests-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Writes a spec into a fresh folder and returns its path.
public func writeSpec(_ text: String, name: String = "spec.marble") -> String {
    let folder = temporaryFolder()
    let path = folder + "/" + name
    _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    return path
}

/// The repository's root folder (this file is `Tests/TestSupport/TemporaryFiles.swift`).
public let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The operator gallery's specs, `diagrams/`.
public let galleryFolder = repositoryRoot.appendingPathComponent("diagrams")
