#!/usr/bin/env bash
# What an app team's test target meets (make consumer-check, CI): a package that depends only on
# MarblesTesting resolves to Marbles alone (no swift-argument-parser, FlyingFox or OpenCombine:
# they sit behind the Tools and OpenCombine traits), builds clean, and its marble test passes.
# Prints the clean build's time.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
repo=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Consumer/Tests/AppTests"
cat >"$work/Consumer/Package.swift" <<MANIFEST
// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Consumer",
    dependencies: [.package(path: "$repo")],
    targets: [
        .testTarget(name: "AppTests", dependencies: [.product(name: "MarblesTesting", package: "$(basename "$repo")")])
    ]
)
MANIFEST
cat >"$work/Consumer/Tests/AppTests/AppTests.swift" <<'SWIFT'
import MarblesTesting
import Testing

@Test func exclaims() {
    let scheduler = TestScheduler()
    scheduler.run {
        let input = scheduler.cold("-a-b|")
        scheduler.expect(input.map { $0 + "!" }).toBe("-x-y|", values: ["x": "a!", "y": "b!"])
    }
}
SWIFT
cd "$work/Consumer"
"$SWIFT" package show-dependencies --format json >"$work/dependencies.json" 2>"$work/resolve.log" || { cat "$work/resolve.log"; exit 1; }
python3 - "$work/dependencies.json" <<'PY'
import json, sys
root = json.load(open(sys.argv[1]))
def walk(node):
    for dep in node.get("dependencies", []):
        yield dep
        yield from walk(dep)
fetched = sorted({d["name"] for d in walk(root)})
if len(fetched) != 1:
    sys.exit(f"a MarblesTesting-only package fetches {fetched}; it should fetch Marbles alone")
print(f"a MarblesTesting-only package fetches: {fetched[0]} (nothing else)")
PY
start=$(date +%s%N)
"$SWIFT" build --build-tests >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
end=$(date +%s%N)
awk -v ns=$((end - start)) 'BEGIN { printf "clean build of the package and its test target: %.1f s\n", ns / 1e9 }'
"$SWIFT" test --skip-build 2>&1 | tail -1
