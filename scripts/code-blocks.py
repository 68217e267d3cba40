#!/usr/bin/env python3
"""Keeps the README's links resolving inside the repository, and the Swift code blocks of the README and of the DocC articles that promise it compiled
and run as tests: each ```swift block becomes a test source file of its own (--write), and
--check fails when one is missing, stale or left over. A block whose first line is
`// Package.swift` is a manifest fragment instead: --check puts it in a throwaway package beside
this repository (as `../Marbles`) and has SwiftPM read it.

Usage: code-blocks.py --write | --check
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Each document, the folder its blocks go to, and the prefix of their files.
DOCUMENTS = [
    ("README.md", "Tests/MarblesAsyncTests/Readme", "README"),
    ("Sources/MarblesTesting/MarblesTesting.docc/AsyncTestsOnVirtualTime.md", "Tests/MarblesAsyncTests/DocC", "AsyncTestsOnVirtualTime"),
]
BLOCK = re.compile(r"^```swift[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


def blocks(document):
    text = open(os.path.join(ROOT, document), encoding="utf-8").read()
    found = []
    for match in BLOCK.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        found.append((line, match.group(1)))
    return found


def generated(document, line, code, index, prefix):
    header = (f"// Generated from {document} (the block at line {line}) by scripts/code-blocks.py: edit the\n"
              f"// document, then run `make code-blocks`.\n// swift-format-ignore-file\n")
    return f"{prefix}-{index}.swift", header + code


def expected_files():
    files, manifests = {}, []
    for document, folder, prefix in DOCUMENTS:
        index = 0
        for line, code in blocks(document):
            if code.startswith("// Package.swift"):
                manifests.append((document, line, code))
                continue
            index += 1
            name, content = generated(document, line, code, index, prefix)
            files[os.path.join(folder, name)] = content
    return files, manifests


def check_manifest(document, line, code):
    with tempfile.TemporaryDirectory() as scratch:
        os.symlink(ROOT, os.path.join(scratch, "Marbles"))
        app = os.path.join(scratch, "App")
        os.makedirs(os.path.join(app, "Tests", "AppTests"))
        open(os.path.join(app, "Tests", "AppTests", "AppTests.swift"), "w").write("")
        fragment = "\n".join(l for l in code.splitlines() if not l.startswith("// Package.swift"))
        open(os.path.join(app, "Package.swift"), "w").write(
            "// swift-tools-version: 6.0\nimport PackageDescription\n\nlet package = Package(\n    name: \"App\",\n"
            + fragment.rstrip().rstrip(",") + "\n)\n")
        result = subprocess.run([os.environ.get("SWIFT", "swift"), "package", "--package-path", app, "dump-package"],
                                capture_output=True, text=True)
        if result.returncode != 0:
            print(f"{document}:{line}: the manifest block does not read as a package manifest:\n{result.stderr}")
            return False
    return True


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "--check"
    files, manifests = expected_files()
    folders = {folder for _, folder, _ in DOCUMENTS}
    present = {os.path.join(folder, name) for folder in folders
               for name in (os.listdir(os.path.join(ROOT, folder)) if os.path.isdir(os.path.join(ROOT, folder)) else [])}
    if mode == "--write":
        for folder in folders:
            os.makedirs(os.path.join(ROOT, folder), exist_ok=True)
        for path in present - set(files):
            os.remove(os.path.join(ROOT, path))
        for path, content in files.items():
            open(os.path.join(ROOT, path), "w", encoding="utf-8").write(content)
        print(f"{len(files)} code block(s) written as tests")
        return 0
    ok = True
    for path, content in files.items():
        full = os.path.join(ROOT, path)
        if not os.path.exists(full) or open(full, encoding="utf-8").read() != content:
            print(f"{path} is missing or stale: run `make code-blocks`")
            ok = False
    for path in present - set(files):
        print(f"{path} has no block any more: run `make code-blocks`")
        ok = False
    for manifest in manifests:
        ok = check_manifest(*manifest) and ok
    # Every link of the README resolves inside the repository.
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    for target in re.findall(r"\]\(([^)\s]+)\)", readme):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        if not os.path.exists(os.path.join(ROOT, target.split("#")[0])):
            print(f"README.md links to {target}, which is not in the repository")
            ok = False
    if ok:
        print(f"{len(files)} code block(s) compiled as tests, {len(manifests)} manifest block(s) read by SwiftPM")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
