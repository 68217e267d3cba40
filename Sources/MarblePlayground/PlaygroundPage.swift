import Foundation

/// The playground's one page: editor, live diagram, gallery picker, folder files, save and
/// downloads. Self-contained (inline style and script, no fonts or libraries from elsewhere);
/// kept as a resource, `Resources/playground.html`.
enum PlaygroundPage {
    static let html: String = resource("playground", "html")
}

/// A text resource of this module; a missing one is a build defect, so it traps with its name.
func resource(_ name: String, _ ext: String) -> String {
    guard let url = Bundle.module.url(forResource: name, withExtension: ext), let text = try? String(contentsOf: url, encoding: .utf8)
    else { preconditionFailure("the resource \(name).\(ext) is missing from the MarblePlayground bundle") }
    return text
}
